-- Common mode (docs/rules.md "Incidents"): an incident whose first failure every process of the launch
-- shares, whichever the launcher reports first; read by k10s_incident (_incident.sql), which then names no one.

-- k10s_incident_common_mode: a failure every process of a launch shares whichever reports it first: the command line
--   argparse rejected or whose script (or `-m` module: `python3: No module named run`) the interpreter cannot open (`python3: can't open file …`), or source Python cannot parse (the same for every process; only the
--   launcher's --local-rank differs), or NCCL's "invalid usage" (the same code's misuse of
--   the library, or ranks sharing a GPU: the configuration every rank runs), or a torch build
--   without the backend the code calls ("Torch not compiled with CUDA enabled", "Distributed
--   package doesn't have NCCL built in": every process imports the same torch), or a library's check
--   of the run's settings that rejects their combination (a ValueError: "DeepSpeed Zero-3 is not
--   compatible with passing a `device_map`", "… are incompatible"): every process checks the same settings;
--   or DTensor's dispatch finding no device mesh for a c10d collective's arguments (batch 82);
--   or torch_xla's process unable to reach the mesh master its launcher serves at start (`Failed to
--   connect to client mesh master: host:port`, XRT's rendezvous): the launch's setup, which every
--   process shares; the spawn parent names whichever child it reaped first (batch 88);
--   or a worker forked after its parent initialised CUDA ("Cannot re-initialize CUDA in forked
--   subprocess": every worker the launch forks inherits the parent's state; batch 92);
--   or a c10d backend refusing a collective it does not implement ("Backend gloo does not support
--   alltoall": the backend the launch chose for every process; batch 102);
--   or a pydantic model of the run's settings refusing them (`N validation error(s) for …Config`: batch 101);
--   or the run's batch arithmetic refused (a global batch size not divisible by its grouping, or not equal to its
--   factors: session 51);
--   or a ZeRO checkpoint resumed on another data-parallel world size (DeepSpeed's `The checkpoint being
--   loaded used a DP world size of 8 but the current world size is 16`: batch 112);
--   or NCCL's communicator failing on a CUDA call NCCL made that the driver refused as an invalid
--   argument, as torch reports it (`ncclUnhandledCudaError: Call to CUDA function failed.` / `Last error:`
--   / `Cuda failure 1 'invalid argument'`): NCCL's transport setup (NVLS, P2P, cuMem) on this platform,
--   which every member builds alike (batch 103). NCCL's own `NCCL WARN Cuda failure` line is not this
--   reading: with the peers' error returns beside it, nccl_several and a peer's remote error place it;
--   save where NCCL raised it in its NVLS transport (the node's multicast set-up, every local rank's: batch 175);
--   or vLLM's custom all-reduce refusing its CUDA call's arguments ('invalid argument': batch 107);
--   or CUDA's 802/803, the node not ready for CUDA (its Fabric Manager down: batch 323), or NCCL's NVLS multicast
--   memory the node's NVSwitch fabric would not bind (batch 321);
--   or glibc's failed assert() in native code every process runs (batch 326).
--   Not the torch build's wording where one rank raised it while another rank saw a peer's connection
--   close (gloo's teardown): that rank waited in a collective, past the code the first failed in, so the
--   code path was the failing rank's own (`.to("cuda")` on one rank only: its own setup fault)
-- empty-without: k10s_incident_line
-- empty-columns: job_key VARCHAR, incident BIGINT, error_type VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_incident_common_mode AS
WITH own AS (SELECT * FROM k10s_incident_own),
first AS (SELECT * FROM k10s_incident_first),
spawn_nodes_alike AS (  -- srun's tasks are node launchers where mp.spawn reports in the same log body (each task spawned
                        -- its node's processes): two or more of those tasks exiting on their own, two or more spawn reports
                        -- (one per node's parent), and every exception the spawned processes raised the same (type and
                        -- message): each node's first failure is the same error, the code every process runs (real
                        -- incidents batch 41: detectron2 on two nodes, `-- Process 3 terminated` on each with one TypeError)
    SELECT i.job_key, i.incident, min(i.error_type) AS error_type
    FROM k10s_incident_line i
    WHERE i.role = 'own' AND i.kind = 'python_exception'
      AND i.raw_row IN (SELECT raw_row FROM k10s_log WHERE kind = 'process_exit' AND subkind = 'spawn'
                        GROUP BY raw_row HAVING count(*) >= 2)
      AND i.raw_row IN (SELECT raw_row FROM k10s_log WHERE kind = 'process_exit' AND subkind = 'srun' AND exit_code > 0
                        GROUP BY raw_row HAVING count(DISTINCT rank) >= 2)
    GROUP BY i.job_key, i.incident
    HAVING count(*) >= 2 AND count(DISTINCT (i.error_type, i.error_message)) = 1
),
ordinal_alike AS (  -- a process's `CUDA error: invalid device ordinal` (it selected a GPU index past those it sees): every
                    -- local rank at or above the node's GPU count fails it alike, so it is one process's own only where that
                    -- process is its node's last local rank and the node's process count is known (LMFlow-855: two processes,
                    -- rank 1 fails, rank 0 carries on); a lower local rank (the ones above it fail alike, unseen: seven
                    -- workers on one GPU), no rank, or a node whose process count import-logs built from the ranks the log
                    -- names (pod label k10s.io/imported-nproc: its highest rank seen is the last by construction; one rank's
                    -- copy of the error, RAG-Retrieval-27) is every such process alike: no single culprit. A line naming no
                    -- rank is the process the launcher reports failing first (the rank `decided` gives its cause to)
    SELECT o.job_key, o.incident, 'CUDA error: invalid device ordinal' AS error_type
    FROM own o LEFT JOIN first f USING (job_key, incident)
    WHERE o.kind IN ('cuda_error', 'python_exception') AND regexp_matches(o.error_message, '(?i)invalid device ordinal')
      AND NOT EXISTS (SELECT 1 FROM k10s_rank r JOIN pods p ON p.pod_uid = r.pod_uid
                      WHERE r.job_key = o.job_key AND r.rank = coalesce(o.rank_eff, f.rank_eff) AND r.local_rank = r.nproc_per_node - 1
                        AND json_extract_string(p.labels_json, '$."k10s.io/imported-nproc"') IS NULL)
    GROUP BY ALL
),
staging_race AS (  -- the first failure is an exception on a file a process writes and then moves: a rename between two
                   -- paths whose source had vanished or whose target already existed (`[Errno 39] Directory not empty:
                   -- 'out/tmp-checkpoint-x' -> 'out/checkpoint-100'`, `[Errno 2] … 'a' -> 'b'`, `[Errno 17]`), or a
                   -- temporary file gone (`….json.tmp.pid_N_…`, `….incomplete`, `….partial`): another process did the same
                   -- step first (a checkpoint's staging directory, a compiler's or a dataset's shared cache), processes
                   -- racing on shared storage, whichever lost the race (docs/rules.md, "Session 25: batch 72"); or a
                   -- directory created with exist_ok=True that another process created at that moment (the parser's
                   -- mark, log_owners.RACED_MKDIR: its FileExistsError came through an `os.makedirs(d, exist_ok=True)`
                   -- frame; docs/rules.md, "Session 27: batch 85"). A data file missing, a directory that exists (no
                   -- such frame), a path under `/tmp/` are the rank's own as before. The quotes may be a rich-text
                   -- editor's (‘ ’: the same line pasted through one; docs/rules.md, "Session 30: batch 124"). Or a
                   -- compiled kernel gone from a JIT compiler's kernel cache (`[Errno 2]` on a path under Triton's
                   -- `.triton/cache/`, Inductor's `torchinductor_<user>/`, a `triton_cache…`/`inductor_cache…` directory
                   -- a TRITON_CACHE_DIR/TORCHINDUCTOR_CACHE_DIR names): the processes of a launch compile into and read
                   -- one cache, so whichever found another's entry half-written or replaced lost that race, not its
                   -- own fault (torchtitan-2146: rank 6's `.hsaco` on 8 MI250s; docs/rules.md, "Session 32: batch 140").
                   -- Or a marker file the processes signal each other with, gone (`[Errno 2]` on a file named a signal
                   -- file, `._signal_file_node0_KfmwNg`, or named after a node or rank and a state, `.local_rank0_completed_
                   -- autoresume`, `rank3.done`): one process writes it, the others wait for it, one removes it; the process
                   -- that finds it missing met the protocol's race on shared storage (or a leader that never wrote it,
                   -- whose own failure is its event), not a fault of its own (llm-foundry-1736: rank 0 of a multi-node run
                   -- removing its node's signal file; docs/rules.md, "Session 33: batch 153")
    SELECT job_key, incident, race || error_type AS error_type FROM (
        SELECT f.job_key, f.incident, f.error_type,
               CASE WHEN starts_with(f.error_message, 'directory another process created at once (exist_ok=True): ')
                    THEN 'a directory another process created at once, '
                    WHEN regexp_matches(f.error_message, '(?i)(?:\[Errno 2\]|No such file)[^''‘’]*[''‘’][^''‘’]*/(?:\.triton/cache|torchinductor_[^/''‘’]+|(?:torch_?)?inductor[_-]?cache[^/''‘’]*|triton[_-]?cache[^/''‘’]*)/[^''‘’]*[''‘’]')
                    THEN 'a kernel the launch''s processes compile into one cache, gone, '
                    WHEN regexp_matches(f.error_message, '(?i)(?:\[Errno 2\]|No such file)[^''‘’]*[''‘’](?:[^''‘’]*/)?[^/''‘’]*(?:signal[_-]?file|(?:node|rank)[_-]?[0-9]+[^/''‘’]*(?:complete|done|ready|finish|barrier)|(?:complete|done|ready|finish|barrier)[^/''‘’]*(?:node|rank)[_-]?[0-9]+)[^/''‘’]*[''‘’]')
                    THEN 'a marker file the processes signal each other with, gone, '
                    WHEN regexp_matches(f.error_message, '\[Errno (?:2|17|39|66)\][^''‘’]*[''‘’][^''‘’]+[''‘’] -> [''‘’][^''‘’]+[''‘’]')
                      OR regexp_matches(f.error_message, '(?i)(?:\[Errno 2\]|No such file)[^''‘’]*[''‘’][^''‘’]*\.(?:tmp|incomplete|partial)\b[^''‘’]*[''‘’]')
                    THEN 'a file another process moved first, ' END AS race
        FROM first f
        WHERE f.kind = 'python_exception' AND f.subkind = 'raised')
    WHERE race IS NOT NULL
),
one_host_alike AS (  -- the first failure is the host's or the binary's, not the rank's: an illegal instruction (SIGILL: a
                    -- binary or library built for another CPU), a shared library missing or a C library too old (`cannot
                    -- open shared object file`, `version `GLIBC_2.32' not found`), a CPU instruction set the build needs
                    -- and the host lacks, in a job whose pasted launch command line starts every process on one host
                    -- (`mpiexec -np 2 ./app`, `mpirun -np 4 -H localhost:4`, `horovodrun -np 2 -H localhost:2`, `torchrun
                    -- --nproc_per_node 8` with no --nnodes but 1: parsers/log_launch_cmd.py): the ranks share that host,
                    -- that binary and its libraries, so each meets it alike, whichever the launcher reports first. Not
                    -- where the log also holds a launch over several hosts (or a hostfile), and not a kill (SIGKILL, an
                    -- OOM: one process's), nor a segfault or an exception (the rank's own code path or data)
                    -- (docs/rules.md, "Session 32: leftovers"). Or a Python module missing (`ModuleNotFoundError: No
                    -- module named 'mpi4py'`): the processes of a one-host launch run one interpreter from one
                    -- environment, so whichever imports it first fails as the others do (spvnas-65: `torchpack dist-run
                    -- -np 4`, mpirun's first exit rank 3); not rank 0's (rank 0 alone runs evaluations and saves, whose
                    -- imports are its own path: docs/rules.md, "Session 40: batch 228")
    SELECT f.job_key, f.incident,
           'a one-host launch (`' || left(trim(c.line), 120) || '`) starts every process on one host from one binary, '
           || CASE WHEN f.cause = 'sigill' THEN 'and an illegal instruction (SIGILL) is the binary''s on that CPU'
                   WHEN f.cause <> 'sigill' AND NOT regexp_matches(coalesce(f.error_message, '') || ' ' || coalesce(f.line, ''),
                                                                    '(?i)shared object|shared librar|\bGLIBC|instructions?\b')
                   THEN 'and a Python module is missing from the environment they all run'
                   ELSE 'and the host''s libraries or CPU refuse it' END AS error_type
    FROM first f
    JOIN (SELECT job_key, arg_min(line, line_no) AS line FROM k10s_log WHERE kind = 'launch_cmd' AND subkind = 'one_host' GROUP BY ALL) c
      ON c.job_key = f.job_key
    WHERE (f.cause = 'sigill'
           OR regexp_matches(coalesce(f.error_message, '') || ' ' || coalesce(f.line, ''),
                             '(?i)cannot open shared object file|error while loading shared libraries|\bGLIBC(?:XX)?_[0-9.]+[''‘’`]? not found'
                             || '|compiled to use \w+ instructions?,? but (?:these|it) (?:aren''t|are not|isn''t|is not) available'
                             || '|\bCPU (?:does not|doesn''t) support (?:the )?(?:AVX|SSE|FMA|AMX)\w*|\billegal (?:hardware )?instruction\b')
           OR (f.rank_eff IS DISTINCT FROM 0 AND f.kind IN ('python_exception', 'process_exit')
               AND EXISTS (SELECT 1 FROM k10s_incident_line m WHERE m.job_key = f.job_key AND m.incident = f.incident
                           AND m.kind = 'python_exception' AND m.rank_eff IS DISTINCT FROM 0
                           AND m.error_type IN ('ModuleNotFoundError', 'ImportError')
                           AND regexp_matches(coalesce(m.error_message, ''), '^No module named\b'))))
      AND NOT EXISTS (SELECT 1 FROM k10s_log h WHERE h.job_key = f.job_key AND h.kind = 'launch_cmd' AND h.subkind = 'hosts')
      -- nor where the log's own lines name two hosts (NCCL's `host:pid:tid`): a launch with no host list may still
      -- span the nodes a batch system allocated it (`mpirun -np 16 ./app` inside an sbatch script)
      AND (SELECT count(DISTINCT n.nccl_host) FROM k10s_log n WHERE n.job_key = f.job_key AND n.nccl_host IS NOT NULL) < 2
),
untagged_alike AS (  -- the first failure is an uncaught exception printed twice or more with no rank tag in one log
                     -- body (the same type and words): a process prints its uncaught traceback once, so two copies are
                     -- two processes that raised it alike, whichever the launcher reaped first (`failed (exitcode: 1)
                     -- local_rank: 0`; not a process the launcher saw killed by a signal, a failure of its own); the
                     -- corpus' eleven such pastes are all controls (docs/rules.md, "Session 57"; LlamaFactory-4035)
    SELECT i.job_key, i.incident, 'the same ' || min(i.error_type) || ' printed by two or more processes with no rank tag' AS error_type
    FROM k10s_incident_line i
    JOIN first f ON f.job_key = i.job_key AND f.incident = i.incident AND f.cause = 'python-exception'
    JOIN (SELECT job_key, raw_row, line_no, error_type, error_message,  -- each untagged copy after the one before it
                 lag(line_no) OVER (PARTITION BY job_key, raw_row, container, error_type, error_message ORDER BY line_no, event_id) AS prev_line
          FROM k10s_log WHERE kind = 'python_exception' AND subkind = 'raised' AND rank IS NULL AND local_rank IS NULL) c
      ON c.job_key = i.job_key AND c.error_type = i.error_type AND c.error_message IS NOT DISTINCT FROM i.error_message
     AND c.prev_line IS NOT NULL
    WHERE i.role = 'own' AND i.kind = 'python_exception' AND i.subkind = 'raised'
      -- nor a launcher's report of a process's end between them: the second copy may then be its echo of the failed
      -- worker's log (Paddle's `ERROR LOG DETAIL` under `Container rank 0 status failed`) or the same rank failing again
      -- after a restart
      AND NOT EXISTS (SELECT 1 FROM k10s_log r WHERE r.raw_row = c.raw_row
                      AND r.kind IN ('worker_group_restart', 'torchrun_failure', 'process_exit')
                      AND r.line_no BETWEEN c.prev_line AND c.line_no)
      -- and every pod of the job with logs shows it: copies in one node's log of several, the others' free of it, are that
      -- node's processes alike (its own environment or data: the node is the culprit, tests/test_node_alike.py)
      AND NOT EXISTS (SELECT 1 FROM (SELECT DISTINCT job_key, pod_key FROM k10s_log WHERE job_key IS NOT NULL) p
                      WHERE p.job_key = i.job_key
                        AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = p.job_key AND x.pod_key = p.pod_key
                                        AND x.kind = 'python_exception' AND x.subkind = 'raised'
                                        AND x.error_type = i.error_type AND x.error_message IS NOT DISTINCT FROM i.error_message))
    GROUP BY ALL
),
nccl_tests_hosts_alike AS (  -- nccl-tests' own `HOST: Test NCCL failure FILE.cu:LINE 'msg'` (parsers/log_nccl_tests.py,
                             -- one per failing process) printed alike on two or more hosts, an NCCL result a process's
                             -- own calls return (a CUDA call NCCL made failing, the library's usage or arguments refused:
                             -- not a peer's loss, `unhandled system error`, that every survivor of one host's fault shows),
                             -- and the incident's own lines nothing but launchers' exit reports (Open MPI's first exit): the
                             -- same build, settings and stack on every host, whichever process the launcher saw exit first
                             -- (NVIDIA/nccl-tests#322; one host's processes alike stay that host's: nccl-tests-219)
    SELECT i.job_key, i.incident, 'nccl-tests'' ' || t.msg || ' on ' || t.hosts || ' hosts alike' AS error_type
    FROM (SELECT job_key, incident FROM k10s_incident_line WHERE role = 'own' GROUP BY ALL
          HAVING bool_and(kind IN ('process_exit', 'torchrun_failure'))) i
    JOIN (SELECT job_key, count(DISTINCT nccl_host) AS hosts, min(error_message) AS msg FROM k10s_log
          WHERE kind = 'nccl_test_failure' GROUP BY job_key
          HAVING count(DISTINCT nccl_host) >= 2 AND count(DISTINCT error_message) = 1
             AND bool_and(subkind IN ('ncclUnhandledCudaError', 'ncclInvalidUsage', 'ncclInvalidArgument'))) t
      ON t.job_key = i.job_key
),
shared_dir_files AS (  -- (shared_dir_alike) each raised exception saying a file is missing or its lock is not to be had,
                      -- with the directory of the first path it names
    SELECT job_key, rank_resolved, pod_key, local_rank, event_id, error_type,
           regexp_replace(regexp_extract(error_message, '((?:[~.]{0,2}/)?[\w.@+-]+(?:/[\w.@+-]+)+)', 1), '/[^/]*$', '') AS dir
    FROM k10s_log
    WHERE kind = 'python_exception' AND subkind = 'raised' AND job_key IS NOT NULL
      AND (rank_resolved IS NOT NULL OR local_rank IS NOT NULL)
      AND (regexp_matches(error_type, '(?:^|\.)FileNotFoundError$')
           OR regexp_matches(error_message, '(?i)no such file|\[errno 2\]|\bdoes(?:n''t| not) exist\b|\b(?:acquire|acquiring|obtain|release|releasing) (?:the )?(?:file )?lock\b|\blocked file\b|\bcould not be acquired\b'))
),
shared_dir_alike AS (  -- the first failure is an exception saying a file is missing (FileNotFoundError, `Expected to find
                       -- locked file … but it doesn't exist`) or its lock is not to be had (`Couldn't acquire lock on …`,
                       -- filelock's `could not be acquired`) under a directory, and a second process (another rank, or
                       -- another local rank of another pod) raised the same kind of error under that same directory:
                       -- files the processes make, lock and read for each other there (a metric's rendezvous locks, a
                       -- dataset's cache, gathered `part_N.pkl` results, a checkpoint directory), so the file system they
                       -- share, or their coordination across nodes through it, fails them alike, whichever raised first.
                       -- Not where another process failed on its own another way in the incident (the one that should
                       -- have made the file: GeneticTrading's rank 0 CUDA error before ranks 1-3's missing cache), nor
                       -- one process alone (its own file, its own path) (docs/rules.md, "Session 62: one shared directory")
    SELECT f.job_key, f.incident,
           'a directory the processes share (' || left(d.dir, 120) || '): ' || count(DISTINCT coalesce(x.rank_resolved::VARCHAR, x.pod_key || '/' || x.local_rank))
           || ' processes each raised that a file there is missing or its lock is not to be had' AS error_type
    FROM first f
    JOIN shared_dir_files d ON d.job_key = f.job_key AND d.event_id = f.event_id AND d.dir <> ''
    JOIN shared_dir_files x ON x.job_key = f.job_key AND x.dir = d.dir
    WHERE f.kind = 'python_exception'
      AND NOT EXISTS (SELECT 1 FROM k10s_incident_line o WHERE o.job_key = f.job_key AND o.incident = f.incident
                      AND o.role = 'own' AND o.tier = 1 AND o.rank_eff IS DISTINCT FROM f.rank_eff
                      AND NOT EXISTS (SELECT 1 FROM shared_dir_files e WHERE e.event_id = o.event_id AND e.dir = d.dir))
    GROUP BY f.job_key, f.incident, d.dir
    HAVING count(DISTINCT coalesce(x.rank_resolved::VARCHAR, x.pod_key || '/' || x.local_rank)) >= 2
),
peer_saw_close AS (  -- the ranks that saw a peer's connection close at teardown (gloo's `Connection closed by
                     -- peer`): a common-mode reading below does not hold for a rank another rank saw leave while it
                     -- got past the call, the failing rank's own path
    SELECT DISTINCT job_key, incident, rank_eff FROM k10s_incident_line
    WHERE role = 'victim' AND kind = 'python_exception' AND subkind = 'teardown' AND rank_eff IS NOT NULL
      AND regexp_matches(error_message, '(?i)connection (?:closed|reset) by peer')
),
own_device_fault AS (  -- a rank's own GPU hardware fault among the incident's own lines (_incident_own.sql): that GPU's,
                      -- not the launch's, so a reading of every process alike beside it (a node's NVLS set-up refused as
                      -- an invalid argument, the same code) does not swallow it: the rank stays named (docs/rules.md,
                      -- "Session 62: a rank's own device fault beside a node-wide failure")
    SELECT DISTINCT job_key, incident FROM k10s_incident_device_fault
)
SELECT job_key, incident, min(error_type) AS error_type FROM (
SELECT job_key, incident, min(CASE WHEN regexp_matches(coalesce(error_message, ''), '(?i)system not yet initiali[sz]ed')
                                   THEN 'the node''s CUDA not ready: system not yet initialized (CUDA error 802: an NVSwitch system''s Fabric Manager not running or not of the driver''s version)'
                                   WHEN regexp_matches(coalesce(error_message, ''), '(?i)unsupported display driver / cuda driver combination')
                                   THEN 'the node''s CUDA not ready: system has unsupported display driver / cuda driver combination (CUDA error 803: the driver and its kernel module apart)'
                                   WHEN kind = 'cuda_error' AND (starts_with(coalesce(error_message, ''), 'NVLS multicast memory bind failed') OR nvls_warn)
                                   THEN 'the node''s NVSwitch fabric refused NCCL''s NVLS multicast set-up ('
                                        || CASE WHEN nvls_warn THEN 'CUDA error: ' ELSE '' END || coalesce(error_message, 'a CUDA call') || '; check '
                                        || '`nvidia-smi -q` Fabric State, restart nvidia-fabricmanager, reset the GPUs or reboot the node; '
                                        || 'NCCL_NVLS_ENABLE=0 goes on without NVLS)'
                                   WHEN kind = 'nccl_error_other' AND duplicate_gpu
                                   THEN 'the launch''s placement: two ranks of one communicator on one GPU (NCCL''s `Duplicate GPU '
                                        || 'detected`, ncclInvalidUsage; the pair it names is whichever met first): check each '
                                        || 'process''s CUDA_VISIBLE_DEVICES and its LOCAL_RANK → device mapping (torch.cuda.set_device), '
                                        || 'or Ray''s num_gpus per worker and its colocation of workers on a GPU'
                                   WHEN outside_throttle
                                   THEN 'an outside service''s rate limit (HTTP 429, Too Many Requests), which counts the job''s requests together'
                                   WHEN compiler_refusal
                                   THEN 'the same program built and compiled for the same GPU model: ' || coalesce(error_type, 'CUDA error') || ' ' || left(coalesce(error_message, ''), 100)
                                   WHEN kind = 'process_exit' AND subkind = 'native_assert' THEN error_message
                                   WHEN kind = 'nccl_error_other' THEN subkind
                                   WHEN kind = 'cuda_error' AND regexp_matches(coalesce(error_message, ''), '\(custom_all_reduce\.cuh:[0-9]+\)$')
                                   THEN 'vLLM''s custom all-reduce refused its CUDA call (' || error_message || '): every worker of '
                                        || 'the tensor-parallel group sets up its IPC buffers alike; check peer access between the '
                                        || 'GPUs (`nvidia-smi topo -m`), a group spanning nodes or containers, or run with '
                                        || '--disable-custom-all-reduce'
                                   WHEN kind = 'cuda_error' THEN 'NCCL''s CUDA call refused: invalid argument'
                                   ELSE error_type END) AS error_type
FROM (SELECT *, EXISTS (SELECT 1 FROM k10s_incident_line p WHERE p.job_key = i.job_key AND p.incident = i.incident
                        AND p.kind = 'python_exception' AND p.op_type IS NOT NULL) AS parsed_past,
             -- NCCL's WARN of a CUDA call its NVLS transport made (any code: 'invalid argument', 401 'the operation cannot be
             -- performed in the present state', 999): the node's NVSwitch fabric (session 62); NCCL's duplicate-GPU check
             -- anywhere in the incident's NCCL errors (its own line or a `Last error:` payload merged into torch's): placement
             kind = 'cuda_error' AND k10s_nvls_warn(line) AS nvls_warn,
             EXISTS (SELECT 1 FROM k10s_incident_line g WHERE g.job_key = i.job_key AND g.incident = i.incident
                     AND g.kind = 'nccl_error_other' AND contains(coalesce(g.line, ''), 'Duplicate GPU detected')) AS duplicate_gpu,
             -- an outside service's rate limit (HTTP 429) and a compiler's refusal of the program (read below, said above)
             kind = 'python_exception' AND regexp_matches(coalesce(error_message, ''), '(?i)\b429 Client Error\b|\bToo Many Requests\b|\bHTTP Error 429\b|\brate limit exceeded\b') AS outside_throttle,
             kind IN ('python_exception', 'cuda_error') AND (regexp_matches(coalesce(error_type, ''), '(?:^|\.)(?:InductorError|BackendCompilerFailed|LoweringException|CompilationError|InternalTorchDynamoError)$|(?:^|\.)_dynamo\.exc\.(?:Unsupported|TorchRuntimeError)$')
                                                             OR regexp_matches(coalesce(error_message, ''), '^Internal Triton PTX codegen error|ptxas fatal\s*: Value .{1,20} is not defined for option|(?i)no kernel image is available for execution on the device|^invalid device function\s*$')) AS compiler_refusal
      FROM k10s_incident_line i) i
WHERE role = 'own' AND ((error_type IN ('argparse usage error', 'python can''t open file', 'python -m module not found') AND NOT parsed_past)
                        OR error_type IN ('SyntaxError', 'IndentationError', 'TabError')
                        -- (NCCL's duplicate-GPU check not where a rank's own CUDA error or OOM is beside it: session 62)
                        OR (kind = 'nccl_error_other' AND subkind = 'ncclInvalidUsage'
                            AND NOT (duplicate_gpu AND EXISTS (SELECT 1 FROM k10s_incident_line o WHERE o.job_key = i.job_key
                                                               AND o.incident = i.incident AND o.role = 'own' AND o.rank_eff IS NOT NULL
                                                               AND o.kind IN ('cuda_error', 'cuda_oom'))))
                        -- torch's report of NCCL's failed CUDA call, refused as an invalid argument (batch 103): the
                        -- platform's setup of the communicator, every member's; not NCCL's own WARN line (see above)
                        OR (kind = 'cuda_error' AND line NOT LIKE '%NCCL WARN%'
                            AND regexp_matches(line, 'Cuda failure (?:\d+ )?[''‘’]invalid argument[''‘’]'))
                        -- NCCL's own WARN of that refusal raised in its NVLS transport (`transport/nvls.cc:254 NCCL WARN
                        -- Cuda failure 1 'invalid argument'`): NVLS is the node's NVSwitch multicast, which every local rank
                        -- sets up together, and the driver or fabric manager refusing it refuses them all (one node's
                        -- driver, batch 175); NCCL's WARN from its other transports stays a rank's (see above)
                        -- (any CUDA code since session 62: 401 'the operation cannot be performed in the present state', 999
                        -- 'unknown error' after a Fabric Manager restart without the GPU reset: nccl#1788, nccl-tests#276)
                        OR nvls_warn
                        OR (kind = 'python_exception' AND error_type = 'XLA mesh master unreachable')
                        -- a compiler's refusal of the program (Inductor's `torch._inductor.exc.InductorError: LoweringException: …`,
                        -- Dynamo's `BackendCompilerFailed` / `Unsupported` / `TorchRuntimeError`, Triton's `triton.compiler.errors.
                        -- CompilationError: at 33:21:` and `Internal Triton PTX codegen error` with its `ptxas fatal : Value 'sm_100'
                        -- is not defined for option 'gpu-name'`, the runtime's `no kernel image is available for execution on the
                        -- device`, HIP's `invalid device function`: no code object for the GPU's architecture, batch 243's
                        -- verl#3163): every rank compiles the same graph with the same toolchain for the same GPU model, so each meets
                        -- it alike, whichever rank's copy the paste shows; the corpus' four such pastes are all controls (batch 345:
                        -- DeepSpeed#7522, mlcommons/training#826; Megatron-LM-FL#143). Not where a peer saw the rank's connection
                        -- close (it got past the compile: its own path)
                        OR (compiler_refusal
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                        -- accelerate's checks of the launch's own setup, raised in whichever process reaches them first: its
                        -- state used before any `Accelerator()` (`ValueError: Please make sure to properly initialize your
                        -- accelerator via `accelerator = Accelerator()` before using any functionality from the `accelerate`
                        -- library.`: a library version or the script's order, every process's) and its batch dispatcher refusing
                        -- uneven batches (`You can't use batches of different size with `dispatch_batches=True` or when using an
                        -- `IterableDataset``: the data loader's setting, which only the main process applies) (batch 349)
                        OR (kind = 'python_exception'
                            AND regexp_matches(coalesce(error_message, ''), '^Please make sure to properly initiali[sz]e your accelerator via|You can''t use batches of different size with `?dispatch_batches=True'))
                        -- a check of the launch's size, or of the group's agreement, that every process runs alike (session
                        -- 64): an assert of the settings against the world size (parsers/log_shared_inputs.py marks it:
                        -- dlrover#533's `assert gradient_accumulation_steps % world_size == 0` over a bare AssertionError);
                        -- c10d's check of a tensor collective's sizes against the world size (`output tensor size must be
                        -- equal to world_size times input tensor size`: sizes the program computes from its settings, every
                        -- rank's alike); sglang's check of a GPU's free memory against the group's least (`The memory capacity
                        -- is unbalanced. Some GPUs may be occupied by other processes. min_per_gpu_memory=…`: the raiser
                        -- holds more than the least, so the odd GPU is another, which the message does not name); an API's
                        -- check of the type of what the script hands it (`TypeError: Expected `model` to be of type
                        -- `thunder.core.module.ThunderModule`, but got Sequential`: the same script on every rank). The
                        -- corpus' four such pastes are all controls. Not where a peer saw the rank's connection close
                        OR ((starts_with(coalesce(error_message, ''), 'the launch''s size, asserted alike by every process: ')
                             OR (kind = 'python_exception'
                                 AND regexp_matches(coalesce(error_message, ''), '\b(?:output|input) tensor size must be equal to world_size times (?:input|output) tensor size\b|\bThe memory capacity is unbalanced\. Some GPUs may be occupied by other processes\b'))
                             OR (kind = 'python_exception' AND error_type = 'TypeError'
                                 AND regexp_matches(coalesce(error_message, ''), '^Expected `?[\w.]+`? to be of type `?[\w.]+`?, but got ')))
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                        -- an outside service throttling the job (HTTP 429: `huggingface_hub.errors.HfHubHTTPError: 429 Client
                        -- Error: Too Many Requests for url: https://huggingface.co/api/datasets/…`, `HTTP Error 429`, `Rate limit
                        -- exceeded`): a rate limit counts the job's requests (one token, one egress address), not one rank's
                        -- fault, whichever rank's request it refused first (batch 341's torchtitan#2239: every rank streaming C4)
                        OR outside_throttle
                        -- glibc's assert() failing in the native code every process runs (a C++/CUDA extension's host
                        -- code: DeepEP's buffer limits, DeepSpeed's aio, llm.c's data loader): its invariant on the run's
                        -- config and data, met by every rank alike (the corpus' four such pastes: session 55, batch 326);
                        -- not where a peer saw the rank's connection close or a monitored barrier's report names the rank
                        -- absent (its peers got past the step it asserted in: its own path, the forty-seventh launcher set)
                        OR (kind = 'process_exit' AND subkind = 'native_assert'
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff)
                            AND NOT EXISTS (SELECT 1 FROM k10s_log d WHERE d.job_key = i.job_key AND d.kind = 'nccl_desync'
                                            AND d.subkind = 'barrier' AND d.rank = i.rank_eff))
                        -- the node not ready for CUDA at all (`Error 802: system not yet initialized`: an NVSwitch system
                        -- whose Fabric Manager is not running or not of the driver's version; `Error 803: system has
                        -- unsupported display driver / cuda driver combination`): the node's, which every process on it
                        -- meets alike at its first CUDA call (batch 323: dstack#2348)
                        OR (kind IN ('cuda_error', 'python_exception')
                            AND regexp_matches(coalesce(error_message, ''), '(?i)system not yet initiali[sz]ed|unsupported display driver / cuda driver combination'))
                        -- NCCL's NVLS multicast memory the node's NVSwitch fabric would not bind (`Failed to bind NVLink SHARP
                        -- (NVLS) Multicast memory of size N : CUDA error 401 …`: "usually … the Fabric Manager or NVSwitches"):
                        -- the node's, which every local rank's communicator meets alike (batch 321: pytorch#177472)
                        OR (kind = 'cuda_error' AND starts_with(coalesce(error_message, ''), 'NVLS multicast memory bind failed'))
                        OR (error_type IN ('AssertionError', 'RuntimeError')
                            AND (regexp_matches(error_message, 'Torch not compiled with \w+ enabled|Distributed package doesn''t have \w+ built in')
                                 -- a c10d backend refusing a collective it does not implement (`Backend gloo does not
                                 -- support alltoall`, `ProcessGroup gloo does not support alltoall`, `ProcessGroupNCCL does
                                 -- not support scatter`): the backend the launch chose for every process, which every rank
                                 -- calling that collective meets alike (batch 102)
                                 OR regexp_matches(error_message, '^(?:Backend \w+|ProcessGroup\w*(?: \w+)?) does not support \w+')
                                 -- DDP or the c10d store refusing an option the chosen backend or the installed torch build
                                 -- lacks (`Function argument device_ids not supported for the selected backend gloo`, a
                                 -- Windows build's `use_libuv was requested but PyTorch was build without libuv support`):
                                 -- the launch's backend and build, every process's alike (batch 136)
                                 OR regexp_matches(error_message, 'Function argument \w+ not supported for the selected backend \w+|use_libuv was requested but PyTorch was buil[dt] without libuv support')
                                 -- a launcher's rank variables contradicting Open MPI's in one process (DeepSpeed's
                                 -- `LOCAL_RANK (0) != OMPI_COMM_WORLD_LOCAL_RANK (1), not sure how to proceed as we're seeing
                                 -- conflicting local rank info`): the launch set the environment of every process, and each
                                 -- whose two values differ fails alike (Azure ML's MPI under Lightning; batch 104)
                                 OR regexp_matches(error_message, '^(?:LOCAL_RANK|RANK|WORLD_SIZE|LOCAL_SIZE) \(\d+\) != OMPI_COMM_WORLD_(?:LOCAL_RANK|RANK|SIZE|LOCAL_SIZE) \(\d+\)')
                                 -- a worker forked from a parent that had initialised CUDA (torch's `Cannot re-initialize CUDA
                                 -- in forked subprocess`, accelerate's `CUDA has been initialized before the `notebook_launcher`
                                 -- could create a forked subprocess`: a notebook launcher's or a fork strategy's start method):
                                 -- the parent's state, inherited by every forked worker alike (batch 92)
                                 OR regexp_matches(error_message, 'Cannot re-initialize CUDA in forked subprocess|CUDA has been initiali[sz]ed before (?:the )?`?notebook_launcher`?(?:\(\))? could create a forked subprocess')
                                 -- DTensor's dispatch finding no device mesh among a collective's arguments (`found no
                                 -- DeviceMesh from dtensor args for c10d.broadcast_.default`): the program hands DTensor
                                 -- parameters to a plain c10d collective (a module-state sync), the same code on every rank
                                 OR (error_type = 'AssertionError' AND regexp_matches(error_message, '^found no DeviceMesh from dtensor args for ')))
                            AND NOT (rank_eff IS NOT NULL
                                     AND EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                                 AND p.rank_eff <> i.rank_eff)))
                        OR (kind = 'python_exception' AND error_type = 'ValueError'
                            AND regexp_matches(error_message, '\b(?:is|are) (?:not compatible|incompatible)\b'))
                        -- a module without the rank or world-size query the program calls (`AttributeError: module
                        -- 'smdistributed.dataparallel.tensorflow' has no attribute 'get_world_size'`, `… 'local_rank'`):
                        -- every process asks its rank and the world's size, through the same installed library, so
                        -- each meets the missing function alike; another missing attribute (a logging call only rank
                        -- 0 makes, `module 'wandb' has no attribute 'init'`) is still its rank's, and so is the query
                        -- where a peer saw the rank's connection close (it got past the call: the torch build's guard);
                        -- an editor's curly quotes around the names alike
                        OR (kind = 'python_exception' AND error_type = 'AttributeError'
                            AND regexp_matches(error_message, '^module [''"‘’“”][\w.]+[''"‘’“”] has no attribute [''"‘’“”](?:get_)?(?:world_size|rank|local_rank|local_size|node_rank|local_world_size|size)[''"‘’“”]')
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                        -- a call whose arguments do not fit the callee's signature (`TypeError: AsyncRLGRPOTrainer.
                        -- get_batch_samples() takes 3 positional arguments but 4 were given`, `… got an unexpected keyword
                        -- argument 'x'`, `… missing 1 required positional argument: 'y'`): a library and the script or
                        -- subclass calling it apart (a version: batch 183's Transformer Engine dropping the argument
                        -- thunder's executor still passed), the same code on every rank; the corpus' five such pastes are
                        -- all controls, rank 0's too (batch 333's AgentCPM-GUI#51: a lone `[rank0]:` tail through the
                        -- training loop; session 35 had left rank 0 out for its saves and evaluations, on no incident).
                        -- Not where a peer saw the rank's connection close (it got past the call: the failing rank's own path)
                        OR (kind = 'python_exception' AND error_type = 'TypeError'
                            AND regexp_matches(error_message, '\) (?:takes \d+ positional arguments? but \d+ (?:were|was) given|got an unexpected keyword argument [''"‘’]\w+|missing \d+ required (?:positional|keyword-only) arguments?:)')
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                        -- Paddle's dtype type-promotion check (`TypeError: (InvalidType) Type promotion only support
                        -- calculations between floating-point numbers and between complex and real numbers. But got
                        -- different data type x: int64, y: int32.`): the installed build refuses an op on two dtypes,
                        -- and a tensor's dtype is the program's, not the data's: every process running the same code on
                        -- the same build meets it alike, whichever container the launcher reports (batch 98)
                        OR (kind = 'python_exception' AND error_type = 'TypeError'
                            AND regexp_matches(error_message, '^\(InvalidType\) Type promotion only supports? calculations between'))
                        -- a tensor subclass's dispatch with no implementation of an aten op the program calls (torchao's
                        -- `NotImplementedError: OptimState8bit dispatch: attempting to run unimplemented operator/function:
                        -- func=<OpOverload(op='aten.new_zeros', …)>` for its low-bit optimizer states and its quantized or
                        -- float8 tensors, float8_experimental's `attempting to run aten.X, this is not supported`, DTensor's
                        -- `Operator aten.amax.default does not have a sharding strategy registered`): the installed library's
                        -- coverage of the op, pure Python, the same on every rank that runs the step (FSDP's optimizer-state
                        -- gather at a save, a float8 cast under FSDP or TP), whichever rank's copy the paste shows (batch 165).
                        -- Not where a peer saw the rank's connection close (it got past the call: the failing rank's own path)
                        OR (kind = 'python_exception' AND error_type = 'NotImplementedError'
                            AND regexp_matches(error_message, '^(?:\w+ dispatch: attempting to run unimplemented operator/function\b|attempting to run aten\.\S+, this is not supported|Operator aten\.\S+ does not have a sharding strategy registered)')
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                        -- Intel Gaudi's bridge refusing the graph the program built (its asserts in graph.cpp:
                        -- `Graph compile failed. synStatus=synStatus 26 [Generic failure].`, `synNodeCreateWithId failed
                        -- for node: batch_gemm with synStatus 26 [Generic failure]. .`, `… synStatus 1 [Invalid argument]`;
                        -- raised as it is or under the bridge's launch-thread wrapper, parsers/log_habana.py): the host's
                        -- graph compiler refusing an op, its dtype or its graph, the same code on the same Synapse build
                        -- in every process; whichever rank's copy the paste shows (batch 129; batch 93's two ranks alike).
                        -- Not where a peer saw the rank's connection close (it got past the code: the failing rank's own
                        -- path), and not the bridge's device-memory allocation failure (`MODULE:DEVMEM`), the rank's own
                        OR (kind = 'python_exception' AND error_type = 'RuntimeError'
                            AND regexp_matches(error_message, '^(?:\[Rank:\d+\] )?(?:Graph compile failed\. synStatus=|synNodeCreateWithId failed for node: \S+ with synStatus\b)')
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                        -- a pydantic model of the run's settings refusing them (vLLM's `pydantic_core._pydantic_core.
                        -- ValidationError: 1 validation error for ParallelConfig` with `Value error, Tensor parallel size (2)
                        -- cannot be larger than the number of available GPUs (1)`; `… for ModelConfig`, `… for TorchLlmArgs`):
                        -- the launch's configuration, which every process validates alike; a data model's refusal
                        -- (`… for Sample`) is one rank's input and still names it (batch 101)
                        OR (kind = 'python_exception' AND regexp_matches(error_type, '(?:^|\.)ValidationError$')
                            AND regexp_matches(error_message, '^[0-9]+ validation errors? for \w*(?:Config|Args|Arguments|Settings)\b'))
                        -- a checkpoint resumed on a data-parallel world of another size than the one that wrote it
                        -- (DeepSpeed's `ZeRORuntimeException: The checkpoint being loaded used a DP world size of 8 but the
                        -- current world size is 16. Automatic adjustment of ZeRO's optimizer state partitioning with a new
                        -- world size is not currently supported.`): every rank loads the same checkpoint and compares the
                        -- same two sizes, so all raise it alike; whichever rank's copy the paste shows (batch 112)
                        OR (kind = 'python_exception'
                            AND regexp_matches(error_message, '^The checkpoint being loaded used a DP world size of \d+ but the current world size is \d+'))
                        -- a parallel layout the launch's world cannot hold: a framework's check that the world size
                        -- divides by its parallel sizes (ColossalAI's `World size 8 is not divisible by tp_size 1 *
                        -- pp_size 3`, Megatron's `world size (8) is not divisible by total_model_size (3)`, finetrainers'
                        -- `World size 2 must be divisible by the product of all parallel degrees`), or that a model
                        -- dimension divides by the world it is sharded over (`Hidden dim must be divisible by world
                        -- size`): every process compares the same world size with the same settings; whichever rank's
                        -- copy the paste shows (batch 133). A shape divisible by a group's size (a sequence split over
                        -- context-parallel ranks) can be one batch's and is not read so
                        OR (kind = 'python_exception' AND error_type IN ('AssertionError', 'RuntimeError', 'ValueError')
                            AND regexp_matches(error_message, '(?i)\bworld[ _]?size\b[^.;]*?\b(?:is not|isn''t|must be|should be|not) (?:evenly )?divisible by\b|\bdivisible by (?:the )?world[ _]?size\b'))
                        -- the run's batch arithmetic: a trainer's check that the global batch divides by its grouping or
                        -- equals its factors (trl's `The global train batch size (7 x 1) must be evenly divisible by the
                        -- number of generations per prompt (8)`, DeepSpeed's `train_batch_size is not equal to
                        -- micro_batch_per_gpu * gradient_acc_step * world_size 16 != 2 * 1 * 4`, Megatron's `global batch size
                        -- (128) is not divisible by micro batch size (3) times data parallel size (8)`): the settings and the
                        -- world's size every process computes alike at start; whichever rank's copy the paste shows (session 51,
                        -- batch 281: open-r1#249 and #217, one rank's copy each)
                        OR (kind = 'python_exception'
                            AND regexp_matches(error_message, '(?i)\b(?:global|train|total|effective)[ _](?:train[ _])?batch[ _]size\b[^.;]{0,120}?\b(?:is not|isn''t|must be|should be|not) (?:evenly )?(?:divisible by|equal to)\b'))
                        -- Megatron's per-rank NaN/Inf check, raised by whichever rank's local value went non-finite
                        -- first (`Rank 3: found NaN in local grad norm in backwards pass. Device: 3, node: …`; the
                        -- rerun state machine's `Rank 15, node …, device 15, iteration -1: Unexpected result nan
                        -- (message='found NaN in local grad norm for bucket #0 …')`; `found NaN in local forward loss
                        -- calculation`): the detector names where the training's numbers diverged, not a faulty rank;
                        -- a model, precision or learning-rate cause every rank shares shows there alike (batch 95)
                        OR (kind = 'python_exception' AND error_type IN ('AssertionError', 'RuntimeError')
                            AND regexp_matches(error_message, '(?i)\bfound (?:NaN|Inf) in local (?:grad norm|forward loss)\b|\bUnexpected result (?:nan|inf)\b'))
                        -- vLLM's custom all-reduce refusing its own CUDA call's arguments (`Failed: Cuda error
                        -- /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'`, printed by its CUDACHECK, no
                        -- rank): the kernel's IPC buffers and graph addresses are registered alike by every worker of
                        -- the tensor-parallel group, so the launch's configuration (the platform's peer access, a
                        -- quantized model's graph capture) refuses them all; the executor names whichever worker it saw
                        -- exit first (batch 107). Its IPC handles refused alike (`Cuda error …custom_all_reduce.cuh:143
                        -- 'invalid resource handle'`: a tensor-parallel group split across nodes opens node-local
                        -- handles, vllm#52778, batch 396) or peer access refused are the same launch's. Another message
                        -- (an illegal address) is the printing GPU's own
                        OR (kind = 'cuda_error' AND regexp_matches(error_message, '^(?:invalid argument|invalid resource handle|peer access is not supported between these two devices|operation not (?:permitted|supported)) \(custom_all_reduce\.cuh:[0-9]+\)$'))
                        -- activation checkpointing's own check that the recompute reproduced the forward
                        -- (torch.utils.checkpoint's `CheckpointError: … Recomputed values for the following tensors have
                        -- different metadata than during the forward pass`, `… A different number of tensors was saved
                        -- during the original forward and recomputation`): the program's forward and its replay disagree
                        -- (ZeRO-3's or FSDP's partitioned parameters seen empty by the recompute, a cache or a random
                        -- branch the replay does not repeat), the same code and options on every rank; whichever
                        -- rank's copy the paste shows, it names where the check fired, not a faulty rank (batch 99)
                        -- an exception under a source line reading what the launch gives every process alike
                        -- (parsers/log_shared_inputs.py marks it): a sequence subscripted by the rank running out of
                        -- range (`return rank_to_jsonl_iterator_params[rank]` / `IndexError: list index out of range`:
                        -- the configuration built fewer entries than the launch started ranks, so every rank past the
                        -- last fails alike), or `json.loads(args.x)` refusing the command line's argument (the same
                        -- string in every process); whichever rank's copy the paste shows (session 30, named controls)
                        OR (kind = 'python_exception' AND (starts_with(error_message, 'a sequence indexed by rank is shorter than the launch''s ranks: ')
                                                           OR starts_with(error_message, 'the command line''s argument is no JSON: ')
                                                           -- a settings dataclass's __post_init__ refusing the run's settings
                                                           -- (parsers/log_shared_inputs.py; batch 346's ms-swift#7141)
                                                           OR starts_with(error_message, 'the run''s settings, refused as every process parses them: ')))
                        OR (kind = 'python_exception' AND regexp_matches(error_type, '(?:^|\.)CheckpointError$')
                            AND regexp_matches(error_message, '(?i)\bRecomputed values for the following tensors have different metadata\b|\bdifferent number of tensors was saved during the original forward and recomputation\b'))
                        -- DDP's own check that a parameter's gradient hook fires once an iteration (`RuntimeError:
                        -- Expected to mark a variable ready only once. This error is caused by one of the following
                        -- reasons: 1) Use of a module parameter outside the `forward` function … 2) Reused parameters in
                        -- multiple reentrant backward passes`): a parameter shared across passes, or reentrant activation
                        -- checkpointing wrapping it twice, the model's structure and options on every rank alike; the
                        -- paste's rank is the copy shown (batch 121). DDP's unused-parameter error (`Expected to have
                        -- finished reduction …`), which one rank's batch can cause, is not this reading
                        OR (kind = 'python_exception' AND error_type = 'RuntimeError'
                            AND regexp_matches(error_message, '^Expected to mark a variable ready only once\b'))
                        -- DDP's check that every rank built the same model, in its shape or strides wording (`[5]:
                        -- params[0] in this process with sizes [53, 15] appears not to match sizes of the same param in
                        -- process 0.`, torch 1.x's `replicas[0][0] in this process …`): every rank whose parameter differs
                        -- from process 0's raises it, so a model each process builds from its own share of the data (a
                        -- categorical encoder's cardinality, a vocabulary) fails every rank alike; the message names the pair
                        -- compared, not the side that differs, and the paste's rank is the copy shown (batch 162). Not where a
                        -- peer saw the rank's connection close: the others got past the check, so the reporter's model is the
                        -- odd one (a real two-node run, t7-trun-ddp-shape-mismatch-rank1)
                        OR (kind = 'python_exception' AND error_type = 'RuntimeError'
                            AND regexp_matches(error_message, 'in this process with (?:sizes|strides) .*appears not to match (?:sizes|strides) of the same param in process \d+')
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff))
                        -- a compiled extension that does not match the torch it is loaded into: the dynamic linker
                        -- refusing it at import (`ImportError: …/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so:
                        -- undefined symbol: _ZN3c104cuda9SetDeviceEi`, a paste's wrap cutting the message after
                        -- `undefined`), or its op reading torch's layout enums at other values (`RuntimeError: memory
                        -- format option is only supported by strided tensors` from apex's fused layer norm, mamba's and
                        -- VMamba's selective scans): every process imports the same wheel from the same environment and
                        -- calls it alike, so whichever rank's copy the paste shows, or the launcher's first exit, is no
                        -- culprit (batch 183). Not where a peer saw the rank's connection close (it got past the import)
                        OR (kind = 'python_exception'
                            AND ((error_type IN ('ImportError', 'OSError')
                                  AND regexp_matches(error_message, '\.so(?:\.[0-9]+)*: undefined(?: symbol\b|\s*$)'))
                                 OR (error_type = 'RuntimeError'
                                     AND regexp_matches(error_message, '^memory format option is only supported by strided tensors\b')))
                            AND NOT EXISTS (SELECT 1 FROM peer_saw_close p WHERE p.job_key = i.job_key AND p.incident = i.incident
                                            AND p.rank_eff IS DISTINCT FROM i.rank_eff)))
GROUP BY ALL
UNION ALL
SELECT job_key, incident, error_type FROM spawn_nodes_alike
UNION ALL
SELECT job_key, incident, error_type FROM ordinal_alike
UNION ALL
SELECT job_key, incident, error_type FROM staging_race
UNION ALL
SELECT job_key, incident, error_type FROM one_host_alike
UNION ALL
SELECT job_key, incident, error_type FROM untagged_alike
UNION ALL
SELECT job_key, incident, error_type FROM nccl_tests_hosts_alike
UNION ALL
SELECT job_key, incident, error_type FROM shared_dir_alike
UNION ALL
-- NCCL's bootstrap that found no network interface to use (its `Last error:` payload `Bootstrap : no socket interface
-- found`, under whichever code the init call returned: ncclInternalError in NCCL 2.21, ncclInvalidUsage in 2.27): the
-- interface the launch names (NCCL_SOCKET_IFNAME) or the host's network setup, which every process of the launch
-- reads alike; not where a process of the job got past the bootstrap (`NCCL INFO Bootstrap : Using eth0:…`): then one
-- host lacks what the others have, and its processes are the odd ones (docs/rules.md, "Session 28: named controls")
SELECT i.job_key, i.incident, 'NCCL''s bootstrap found no socket interface' AS error_type
FROM k10s_incident_line i
WHERE i.role = 'own' AND i.kind = 'nccl_error_other' AND regexp_matches(i.line, 'Bootstrap ?: ?no socket interface found')
  AND NOT EXISTS (SELECT 1 FROM k10s_log b WHERE b.job_key = i.job_key AND b.kind = 'nccl_bootstrap')
) alike
WHERE NOT EXISTS (SELECT 1 FROM own_device_fault d WHERE d.job_key = alike.job_key AND d.incident = alike.incident)
GROUP BY ALL;

-- k10s_incident_nccl_unplaced: NCCL's report that the communicator itself failed (`unhandled system error` /
--   ncclSystemError, an internal or CUDA error, invalid usage) in a line naming no process (no rank, no local rank, no
--   NCCL `host:pid` prefix), in a pod import-logs made up from a paste: the pod's rank's only by the importer's guess.
--   The collective it failed in is every member's, so where nothing says why in a rank's own line (the first failure is
--   an exit status or this NCCL line) a launcher's exit status beside it is only the first member it saw exit: no single
--   culprit (docs/rules.md, "Real incidents batch 51"). Not where the launcher reports another process's end as its
--   teardown (srun's `task 1: Killed` after task 0's exit 1): it saw every member end, and the one exit of its own is
--   the one failure
-- empty-without: k10s_incident_line
-- empty-columns: job_key VARCHAR, incident BIGINT, subkind VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_incident_nccl_unplaced AS
SELECT i.job_key, i.incident, min(i.subkind) AS subkind
FROM k10s_incident_line i
WHERE i.role = 'own' AND i.cause = 'nccl-error' AND i.rank IS NULL AND i.local_rank IS NULL AND i.pid IS NULL
  AND i.incarnation_uid IN (SELECT pod_uid FROM pod_runtime WHERE NOT spec_known)
  AND EXISTS (SELECT 1 FROM k10s_incident_line x WHERE x.job_key = i.job_key AND x.incident = i.incident
              AND x.role = 'own' AND x.kind IN ('torchrun_failure', 'process_exit') AND x.exit_code IS DISTINCT FROM 0)
  AND NOT EXISTS (SELECT 1 FROM k10s_incident_line v WHERE v.job_key = i.job_key AND v.incident = i.incident
                  AND v.role = 'victim' AND v.kind IN ('torchrun_failure', 'process_exit'))
GROUP BY ALL;

-- k10s_incident_nonfinite_one: per incident, the one rank whose own progress value (its loss, else its grad norm, as its
--   progress lines print it: `loss nan`, `'loss': nan`, `lm loss: nan`; parsers' progress_value) went non-finite while
--   every other rank's stayed finite, around the incident (10 minutes before its first failure line to 5 s after its last;
--   every line where no clock says when): its latest value non-finite, no other rank's non-finite, and another rank's own
--   values shown finite. Where several ranks fail alike (every rank's same `clip_grad_norm_` error: DDP's all-reduce
--   carried one rank's NaN gradients to all), that rank's data is where it began (queries/_incident.sql names it, medium).
--   Not where two or more ranks' values went non-finite (a learning rate too high: every rank's loss inf alike), nor where
--   no other rank's values are shown (a job whose rank 0 alone prints progress: its grad norm is every rank's)
--   (docs/rules.md, "Session 60: the one rank whose own loss went non-finite")
-- empty-without: k10s_incident_line
-- empty-unless: (SELECT count(*) FROM log_events WHERE kind = 'training_step' AND NOT isfinite(progress_value)) > 0
-- empty-columns: job_key VARCHAR, incident BIGINT, rank BIGINT, line VARCHAR, pod_key VARCHAR, node_resolved VARCHAR,
--     gpu_uuid VARCHAR
CREATE OR REPLACE TEMP TABLE k10s_incident_nonfinite_one AS
WITH span AS (  -- each incident's failure lines' clock
    SELECT job_key, incident, min(ts_filled) AS t0, max(ts_filled) AS t1 FROM k10s_incident_line GROUP BY ALL
),
valued AS (  -- each rank's progress values around the incident; the printing rank: torch's `[rankN]:` tag, else the
             -- script's own tag opening the line (`rank 1 step 3 …`, parsers' log_sql.SCRIPT_RANK_OPENING), else the
             -- pod's process behind torchrun's --tee prefix (`[default1]:`), else the line's resolved rank
    SELECT s.job_key, s.incident, coalesce(v.rank, try_cast(nullif(regexp_extract(v.line,
               '^(?:\[default\d+\]:)?\s*\[?(?i:rank)[ =]?(\d{1,7})(?:\]|:|,)?\s', 1), '') AS BIGINT), r.rank, v.rank_resolved) AS rank,
           v.progress_value AS value, v.line, (coalesce(v.ts, TIMESTAMPTZ '1970-01-01 00:00:00+00'), v.raw_row, v.line_no) AS seen_at
    FROM span s JOIN k10s_log v ON v.job_key = s.job_key
    LEFT JOIN k10s_rank r ON r.pod_uid = v.incarnation_uid
                         AND r.local_rank = try_cast(nullif(regexp_extract(v.line, '^\[default(\d+)\]:', 1), '') AS BIGINT)
    WHERE v.kind = 'training_step' AND v.progress_value IS NOT NULL
      AND (v.ts IS NULL OR s.t0 IS NULL OR v.ts BETWEEN s.t0 - INTERVAL 10 MINUTE AND s.t1 + INTERVAL 5 SECOND)
),
latest AS (  -- each rank's latest value (lines no rank is known for left out)
    SELECT job_key, incident, rank, arg_max(value, seen_at) AS value, arg_max(line, seen_at) AS line
    FROM valued WHERE rank IS NOT NULL GROUP BY ALL
)
SELECT l.job_key, l.incident, l.rank, l.line, b.pod_key, b.node_resolved, b.gpu_uuid
FROM latest l
JOIN k10s_incident_best b ON b.job_key = l.job_key AND b.incident = l.incident AND b.rank_eff = l.rank
WHERE NOT isfinite(l.value)
  AND NOT EXISTS (SELECT 1 FROM valued o WHERE o.job_key = l.job_key AND o.incident = l.incident
                  AND o.rank IS DISTINCT FROM l.rank AND NOT isfinite(o.value))
  AND EXISTS (SELECT 1 FROM latest o WHERE o.job_key = l.job_key AND o.incident = l.incident AND o.rank <> l.rank
              AND isfinite(o.value));
