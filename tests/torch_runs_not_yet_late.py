"""The recorded runs not read right yet from the forty-ninth set on (tests/test_torch_runs.py's NOT_YET, both ways),
one module per set (tests/torch_runs_not_yet_t<N>.py), gathered here so that each new set adds two lines here and none
to the test module (``LATE``: both ways; ``LATE_WAY``: each way's own)."""

from __future__ import annotations

from torch_runs_not_yet_t49 import _T49
from torch_runs_not_yet_t50 import _T50
from torch_runs_not_yet_t51 import _T51
from torch_runs_not_yet_t52 import _T52
from torch_runs_not_yet_t53 import _T53
from torch_runs_not_yet_t54 import _T54
from torch_runs_not_yet_t55 import _T55
from torch_runs_not_yet_t56 import _T56
from torch_runs_not_yet_t57 import _T57
from torch_runs_not_yet_t58 import _T58
from torch_runs_not_yet_t59 import _T59
from torch_runs_not_yet_t60 import _T60
from torch_runs_not_yet_t61 import _T61, _T61_WAY
from torch_runs_not_yet_t62 import _T62
from torch_runs_not_yet_t63 import _T63
from torch_runs_not_yet_t64 import _T64
from torch_runs_not_yet_t65 import _T65
from torch_runs_not_yet_t66 import _T66
from torch_runs_not_yet_t67 import _T67
from torch_runs_not_yet_t68 import _T68
from torch_runs_not_yet_t69 import _T69
from torch_runs_not_yet_t70 import _T70
from torch_runs_not_yet_t71 import _T71
from torch_runs_not_yet_t72 import _T72, _T72_WAY
from torch_runs_not_yet_t73 import _T73
from torch_runs_not_yet_t74 import _T74
from torch_runs_not_yet_t75 import _T75
from torch_runs_not_yet_t76 import _T76
from torch_runs_not_yet_t77 import _T77
from torch_runs_not_yet_t78 import _T78
from torch_runs_not_yet_t79 import _T79, _T79_WAY
from torch_runs_not_yet_t80 import _T80
from torch_runs_not_yet_s70 import _S70

LATE: dict[str, str] = {**_T49}
LATE.update(_T50)
LATE.update(_T51)
LATE.update(_T52)
LATE.update(_T53)
LATE.update(_T55)
LATE.update(_T56)
LATE.update(_T58)
LATE.update(_T60)
LATE.update(_T61)
LATE.update(_T62)
LATE.update(_T63)
LATE.update(_T64)
LATE.update(_T65)
LATE.update(_T66)
LATE.update(_T67)
LATE.update(_T68)
LATE.update(_T69)
LATE.update(_T70)
LATE.update(_T71)
LATE.update(_T72)
LATE.update(_T73)
LATE.update(_T74)
LATE.update(_T75)
LATE.update(_T76)
LATE.update(_T77)
LATE.update(_T78)
LATE.update(_T79)
LATE.update(_T80)
LATE.update(_S70)
#: the sets' misses one way only (``import``/``podlog``), from the fifty-fourth on
LATE_WAY: dict[str, dict[str, str]] = {how: {**_T54[how], **_T57[how], **_T59[how], **_T61_WAY[how], **_T72_WAY[how], **_T79_WAY[how]} for how in ("import", "podlog")}
