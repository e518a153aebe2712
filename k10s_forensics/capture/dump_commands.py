"""The read-only commands that fetch hang evidence from inside a training pod.

* ``FR_COMMAND``: reads PyTorch Flight Recorder dump files. The files are named
  ``<prefix><rank>``; the prefix is ``TORCH_NCCL_DEBUG_INFO_TEMP_FILE`` as the container sees
  it (exec'd processes get the container's environment), default ``/tmp/nccl_trace_rank_``.
  The script is a constant (reviewed, and tested by running it): it lists ``<prefix>*``,
  reads only regular files (no symlink, FIFO or device is opened: ``lstat`` first), at most
  ``FR_MAX_FILE_BYTES`` each and ``FR_MAX_TOTAL_BYTES`` in all, at most ``FR_MAX_FILES``
  files, and prints one JSON envelope with each file base64-encoded (docs/bundle-format.md).
  It opens nothing for writing, imports only the standard library, and runs with ``-I -S``
  (no user site, no ``PYTHON*`` environment, no ``site`` import), so nothing of the image's
  Python setup runs either.
* ``RAS_JSON`` / ``RAS_TEXT``: NCCL's own ``ncclras`` client asking the job's RAS threads
  for their status (``STATUS`` query; never ``CONTROL``, which NCCL >= 2.31 added to modify a
  job). JSON needs NCCL >= 2.28.7; older clients refuse ``-f`` and the text form is asked.
"""

from __future__ import annotations

FR_MAX_FILE_BYTES = 16 << 20
FR_MAX_TOTAL_BYTES = 40 << 20
FR_MAX_FILES = 64
DEFAULT_PREFIX = "/tmp/nccl_trace_rank_"

FR_SCRIPT = (
    "import base64,glob,json,os,stat\n"
    "g=os.environ.get\n"
    f"p=g('TORCH_NCCL_DEBUG_INFO_TEMP_FILE') or g('TORCH_FR_DUMP_TEMP_FILE') or '{DEFAULT_PREFIX}'\n"
    "out={'k10s':'flight-recorder/1','prefix':p,'files':[]}\n"
    f"left={FR_MAX_TOTAL_BYTES}\n"
    f"for f in sorted(glob.glob(glob.escape(p)+'*'))[:{FR_MAX_FILES}]:\n"
    " e={'path':f}\n"
    " try:\n"
    "  s=os.lstat(f)\n"
    "  if not stat.S_ISREG(s.st_mode):e['skipped']='not a regular file'\n"
    f"  elif s.st_size>min({FR_MAX_FILE_BYTES},left):e['skipped']='over the size limit';e['bytes']=s.st_size\n"
    "  else:\n"
    "   with open(f,'rb') as h:d=h.read(s.st_size+1)\n"
    f"   if len(d)>min({FR_MAX_FILE_BYTES},left):e['skipped']='over the size limit';e['bytes']=len(d)\n"
    "   else:left-=len(d);e['bytes']=len(d);e['b64']=base64.b64encode(d).decode()\n"
    " except OSError as x:e['skipped']=x.__class__.__name__+': '+str(x)\n"
    " out['files'].append(e)\n"
    "print(json.dumps(out))\n"
)
FR_COMMAND: tuple[str, ...] = ("python3", "-I", "-S", "-c", FR_SCRIPT)
RAS_JSON: tuple[str, ...] = ("ncclras", "-f", "json")
RAS_TEXT: tuple[str, ...] = ("ncclras",)
#: Pod/container environment variables that switch the Flight Recorder on.
FR_ENV = ("TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_FR_BUFFER_SIZE")

__all__ = ["FR_COMMAND", "FR_SCRIPT", "RAS_JSON", "RAS_TEXT", "FR_ENV", "DEFAULT_PREFIX"]
