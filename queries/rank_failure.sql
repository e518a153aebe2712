-- id: rank-failure
-- title: A rank failed on its own and the job was torn down
-- severity: critical
-- requires: k10s_job_log, ranks
-- description: Per incident of a job (queries/_incident.sql), the rank(s) whose process
--   failed first on its own, with a cause read from the logs: host-oom-kill (-9 that no
--   SIGTERM from the launcher preceded), segfault (-11), sigbus (-7), sigfpe (-8), sigill (-4),
--   any other signal but the teardown's by its name (sigsys, sigxcpu, sigtrap, ...; 128+N = -N),
--   sigterm (a worker's -15 that its torchrun agent, whose SIGTERMs are logged, did not send),
--   host-oom (MemoryError, the CPU allocator's failure), a DataLoader worker's signal, abort
--   (-6 without a watchdog timeout on that rank, not after nor in the same second as another
--   rank's own failure: that -6 is the NCCL teardown's), cuda-error (uncorrectable ECC, illegal
--   memory access, device-side assert, launch failure), python-exception (the exception
--   the rank raised, or exit status 1), nccl-error. The ranks the launcher SIGTERMed, whose
--   watchdog fired or that raised a teardown error are victims. Decided by strength, then
--   time: an exit status alone loses to a failure that says why; a failure a minute after
--   the hung collective began is its consequence; ranks failing the same way within one
--   second, or listed the same way on one line (a flattened report), have no single culprit
--   (said with no ranks); an entry torchrun lists under "Failures:" whose Root Cause entry
--   the paste does not hold names no rank (another worker failed too), nor does an entry of a table whose head the log
--   cut with room above it for entries the log does not show (other workers may have failed alike), nor does an exit status alone in a log cut
--   at its head mid-incident (its first line inside a victim's traceback: the rank's own error may lie above the cut); NCCL's report of the communicator failing
--   (unhandled system error, internal error) in a line naming no process, beside a launcher's exit status, names no
--   rank (the collective is every member's); every process of a job reporting the same fatal signal by its own
--   handler within a minute, with no rank failing first, is said with that cause and no rank (common mode). The ChildFailedError "Root Cause"
--   and launchers that print their last spawned command are not trusted. CUDA OOM is left
--   to oom-cascade.
-- columns:
--   job VARCHAR                -- namespace/name of the job
--   cause VARCHAR              -- victims-only (warning, no rank: the job failed and every failure line is a victim's, session 72), host-oom-kill, host-oom, segfault, sigbus, sigfpe, sigill, sigterm, abort, sig<name> / signal-<N> (any other signal), cuda-error, python-exception, collective-mismatch (DDP's model check across ranks), nccl-error, exit-<code>, exit-unknown, rank-dead (HCCL's lost heartbeat), build-lock (info, no rank: the log ends while its processes wait on a JIT extension build), rendezvous-port-in-use / rendezvous-timeout / rendezvous-connection / rendezvous-state / rendezvous-error (warning, no rank: the launcher's rendezvous or its store failed and no rank failed) and rendezvous-closed (info, no rank: another node's agent closed it)
--   severity VARCHAR           -- critical (the line says why), warning (an exit status only, or a culprit said at medium_why, or no single culprit), info (a suspect only: a rank's traceback cut before its exception and nothing else of it, or a culprit said at low_why, confidence low; or no single culprit here, or an exit status only, and other hang evidence names another culprit)
--   ranks BIGINT[]             -- the culprit rank (empty: no single culprit)
--   pods VARCHAR[]             -- its pod
--   nodes VARCHAR[]            -- its node
--   gpus VARCHAR[]             -- its GPU
--   started_at TIMESTAMP WITH TIME ZONE -- first failure
--   ended_at TIMESTAMP WITH TIME ZONE   -- the last line of the teardown (abort)
--   confidence VARCHAR         -- high (the line says why), medium (an exit status only, or medium_why), low (a traceback cut before its exception alone, or low_why), none
--   medium_why VARCHAR         -- why a culprit the line names is said at warning, confidence medium (abort-exit-status: a launcher's -6 alone; spawn-first-only: mp.spawn's one report of a Python exception, all of the job's failure (spawn prints only its first failed process's error); lone-paste-exception: a Python exception in a paste of that rank's lines only; lone-paste-kernel-fault: an illegal address or device-side assert so; lone-paste-failure: any other failure so, but an ECC error or one an Xid or the kernel's OOM kill ties to it; nccl-setup-cuda-call: NCCL's WARN of a CUDA call its shm/p2p/NVLS transport set-up made; nonfinite-progress: ranks failed alike and this one alone showed its own progress value, its loss, non-finite, the others' finite), else null
--   low_why VARCHAR            -- why a culprit the line names is only a suspect, said at info, confidence low (cuda-invalid-argument: a CUDA call refused as an invalid argument, outside NCCL's transport set-up; lone-paste-stack-mismatch: a paste of that rank's lines only whose CUDA error is the build's or driver's misfit with the GPU; lone-paste-storage-full: so, an exception of a full disk or quota; lone-paste-nccl-launch: so, NCCL's report of a CUDA failure launching its collective; lone-paste-autograd-graph: so, autograd's refusal of the program's graph, a loss without a grad_fn or a view modified in place; lone-paste-setup-refusal: so, an exception saying the setup, mode or combination is not supported; lone-paste-program-structure: so, tensors on two devices, an attribute asked of DDP's or FSDP's wrapper, a device-mesh dimension that does not exist; lone-paste-cross-rank-check: so, a check comparing its state with another rank's, `Detected a disagreement ... between rankN and rankM`; lone-paste-graph-capture: so, a CUDA error of CUDA graph capture, `operation failed due to a previous error during capture`; lone-paste-library-check: so, an installed library's own assertion, an AssertionError or NotImplementedError raised in its site-packages code, naming no device, rank, file or shape), else null
--   decided_by VARCHAR         -- the evidence that decided (first-failure; signal-alike: every process's own handler reported one signal, no rank failed first, no ranks named; build-lock: the log ends while its processes wait on a JIT extension build, info, no ranks; rendezvous: the elastic launcher's rendezvous failed and no rank did, no ranks; node-silent: one rank known only by its launcher's report of an exit status while another node's log given beside it holds no failure report of its own, no ranks, session 71; victims-only: a launcher reported an error exit and every failure line is a victim's wait or peer loss, no ranks, session 72; records-alike: the culprit's error logged by its worker's exception handler while another worker's record from the same handler bears the same second, its error cut, no ranks, session 72)
--   error_type VARCHAR         -- the exception class or "CUDA error"
--   error_message VARCHAR      -- its message
--   xid BIGINT                 -- an Xid on the culprit's GPU within 5 minutes (dmesg or DCGM)
--   xid_meaning VARCHAR        -- what that Xid means
--   kernel_line VARCHAR        -- host-oom-kill: the node's dmesg OOM-kill line around it
--   failure_line VARCHAR       -- the line that shows the failure
--   failure_subkind VARCHAR    -- that line's subkind (transport_call: a communication library's report of its own failed CUDA call)
--   table_loader_signal VARCHAR -- the DataLoader worker's kill signal a failure table's traceback field (torch's @record error file) names in that line (_failure_line.sql's loader_signal; read by the narrative, kept out of the evidence), else null
--   together_ranks BIGINT[]    -- ranks that failed the same way within one second
--   exit_tables_status BIGINT  -- the one exit status of ranks failed together that launchers' exit tables alone report (no line of their own output in the logs: torchrun --redirects), or of the one culprit so known where no line of the job is any rank's own (session 70), else null
--   no_culprit_reason VARCHAR  -- why no single rank is named
--   victims BIGINT             -- other ranks (and unresolved processes) torn down
--   victim_ranks BIGINT[]      -- which ranks
--   watchdog_victims BIGINT    -- ranks whose NCCL watchdog fired
--   job_gpus BIGINT            -- GPUs of the job
--   gpu_hours_lost DOUBLE      -- job GPUs x (abort - first failure), from k10s_incident
--   incident BIGINT            -- which incident of the job (1 = first)
--   incidents BIGINT           -- incidents of the job with a failing rank
--   hang_verdict VARCHAR       -- when other hang evidence decides the job's hang (k10s_hang_verdict): evidence/confidence: ranks
SELECT
    i.job_key AS job,
    i.cause,
    -- a suspect only (low_why): a CUDA call refused as an invalid argument (session 50)
    CASE WHEN i.low_why IS NOT NULL THEN 'info'
         WHEN i.confidence = 'high' AND i.medium_why IS NULL THEN 'critical'
         -- named, but not a confident culprit (docs/rules.md, "Session 43: what a paste cannot prove"): an abort known
         -- only by a launcher's report of the exit (-6, no line of the rank's own: the NCCL watchdog's teardown of a
         -- rank that waited ends with the same status where its timeout is not in the log), or a Python exception in a
         -- paste of that one rank's lines (the code every rank runs may have raised it on each: the paste cannot say)
         WHEN i.medium_why IS NOT NULL THEN 'warning'
         WHEN i.confidence = 'low' THEN 'info'
         -- an exit status alone loses to other hang evidence that names another culprit (nccl-hang says it)
         WHEN i.confidence = 'medium' AND v.evidence <> 'first-failure' AND len(v.culprit_ranks) > 0 AND v.confidence IN ('high', 'medium')
              AND NOT list_has_any(v.culprit_ranks, i.culprit_ranks) THEN 'info'
         -- no single failing rank, but other hang evidence names the culprit (nccl-hang says it)
         WHEN len(i.culprit_ranks) = 0 AND v.evidence <> 'first-failure' AND len(v.culprit_ranks) > 0 AND v.confidence IN ('high', 'medium') THEN 'info'
         -- an exception raised in pipelining's shape inference names no one (queries/_incident.sql, shape_inference): said at info
         WHEN len(i.culprit_ranks) = 0 AND starts_with(coalesce(i.error_message, ''), 'raised in pipelining''s shape inference') THEN 'info'
         ELSE 'warning' END AS severity,
    i.culprit_ranks AS ranks,
    -- one rank, or every rank of one pod failing alike (node_wide): its pod and node
    CASE WHEN len(i.culprit_ranks) = 1 OR i.node_wide THEN [i.first_pod] ELSE []::VARCHAR[] END AS pods,
    CASE WHEN (len(i.culprit_ranks) = 1 OR i.node_wide) AND i.first_node IS NOT NULL THEN [i.first_node] ELSE []::VARCHAR[] END AS nodes,
    CASE WHEN len(i.culprit_ranks) = 1 AND i.first_gpu IS NOT NULL THEN [i.first_gpu] ELSE []::VARCHAR[] END AS gpus,
    i.first_failure_at AS started_at,
    i.abort_at AS ended_at,
    CASE WHEN i.low_why IS NOT NULL THEN 'low' WHEN i.medium_why IS NOT NULL THEN 'medium' ELSE i.confidence END AS confidence,
    i.medium_why,
    i.low_why,
    CASE WHEN i.node_silent THEN 'node-silent' WHEN i.records_alike THEN 'records-alike' ELSE 'first-failure' END AS decided_by,
    i.error_type, i.error_message, i.xid, i.xid_meaning, i.kernel_line,
    i.first_line AS failure_line,
    i.first_subkind AS failure_subkind,
    i.table_loader_signal,
    i.together_ranks,
    -- ranks failed together known only by launchers' exit reports (tier 2), one status, no line of their own in the
    -- incident or tagged with their ranks (torchrun --redirects: docs/rules.md, "Session 66: exit tables alone")
    -- (session 70) also one named culprit so known, where no line of the job is any rank's own output ("Session 70:
    -- --redirects consoles"): its status alone cannot say whether it failed on its own or on a peer's failure
    (SELECT min(b.status) FROM k10s_incident_best b
     WHERE b.job_key = i.job_key AND b.incident = i.incident
       AND (list_contains(i.together_ranks, b.rank_eff) AND len(i.together_ranks) > 1
            OR i.culprit_ranks = [b.rank_eff] AND len(i.together_ranks) <= 1
               AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = i.job_key AND x.rank_resolved IS NOT NULL
                               AND x.kind NOT IN ('process_exit', 'torchrun_failure', 'torchrun_sigterm', 'rank_spawn')))
       AND NOT EXISTS (SELECT 1 FROM k10s_incident_line l WHERE l.job_key = i.job_key AND l.incident = i.incident
                       AND (l.rank_eff IS NULL OR list_contains(i.together_ranks, l.rank_eff) OR list_contains(i.culprit_ranks, l.rank_eff))
                       AND l.kind NOT IN ('process_exit', 'torchrun_failure', 'torchrun_sigterm', 'rank_spawn'))
       AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = i.job_key
                       AND (list_contains(i.together_ranks, x.rank_resolved) OR list_contains(i.culprit_ranks, x.rank_resolved))
                       AND x.kind NOT IN ('process_exit', 'torchrun_failure', 'torchrun_sigterm', 'rank_spawn'))
     HAVING bool_and(b.tier = 2 AND b.kind IN ('process_exit', 'torchrun_failure') AND b.status > 0)
        AND count(DISTINCT b.status) = 1) AS exit_tables_status,
    -- (session 68) every rank's same status (_incident.sql all_exited) where ranks printed one message just before it (their
    -- handler's, read as its text: _failure_line.sql said_exit): not "nothing says why", but what, once, and every rank alike
    coalesce((SELECT 'every rank ended with the same status (' || min(b.status) || '), ' || CASE WHEN count(DISTINCT b.rank_eff)
                     = len(i.together_ranks) THEN 'each just after printing the same message (' || left(min(b.msg), 160) || '): every '
                     || 'rank printed it alike' ELSE 'rank ' || array_to_string(list(DISTINCT b.rank_eff ORDER BY b.rank_eff), ', rank ')
                     || ' just after printing "' || left(min(b.msg), 160) || '", the others with nothing that says why' END
                     || ': the same end in every process, whichever the launcher reported first: no single culprit'
              FROM (SELECT *, regexp_replace(error_message, '^\[?(?:[Rr]ank|RANK)(?::\s?|\s)\d+\]?[:\]]\s*', '') AS msg
                    FROM k10s_incident_best WHERE error_type IN ('logged message', 'logged error')) b
              WHERE b.job_key = i.job_key AND b.incident = i.incident AND list_contains(i.together_ranks, b.rank_eff)
                AND starts_with(i.no_culprit_reason, 'every rank ended with the same status (')
              HAVING count(DISTINCT regexp_replace(b.msg, '[0-9]+', 'N', 'g')) = 1), i.no_culprit_reason) AS no_culprit_reason,
    i.victims, i.victim_ranks, i.watchdog_victims, i.job_gpus,
    i.gpu_hours_lost,
    i.incident,
    count(*) OVER (PARTITION BY i.job_key) AS incidents,
    CASE WHEN v.evidence <> 'first-failure'
         THEN v.evidence || '/' || v.confidence || ': ' || CASE WHEN len(v.culprit_ranks) = 0 THEN 'no single culprit' ELSE array_to_string(v.culprit_ranks, ', ') END
    END AS hang_verdict
FROM (SELECT n.*,
             -- every rank failed alike and one alone showed its own loss non-finite (queries/_incident.sql, session 60)
             CASE WHEN n.nonfinite_line IS NOT NULL AND len(n.culprit_ranks) = 1 THEN 'nonfinite-progress'
                  WHEN n.confidence <> 'high' OR len(n.culprit_ranks) = 0 OR n.low_why IS NOT NULL THEN NULL
                  WHEN n.cause = 'abort' AND n.first_kind IN ('torchrun_failure', 'process_exit') THEN 'abort-exit-status'
                  -- mp.spawn's one report (`-- Process N terminated with the following error:`) is all of the job's
                  -- failure: spawn prints only the FIRST failed child's traceback and SIGTERMs the others, so however
                  -- many raised it alike the log shows one; in pod logs as in pastes (docs/rules.md, session 70)
                  WHEN n.spawn_first_only THEN 'spawn-first-only'
                  WHEN n.lone_in_paste AND n.cause = 'python-exception' THEN 'lone-paste-exception'
                  -- a kernel's fault (an illegal address, a device-side assert), not the GPU's: every rank runs that kernel
                  WHEN n.lone_in_paste AND n.cause = 'cuda-error' AND n.first_subkind IN ('illegal-address', 'device-assert')
                       THEN 'lone-paste-kernel-fault'
                  -- any other failure (a signal, an exit, a CUDA error) in a paste of that rank's lines only: whether the
                  -- others failed the same way the paste cannot say; not a GPU's own fault (ECC, fallen off the bus), nor
                  -- one the node's kernel log or an Xid of its GPU ties to this process
                  WHEN n.lone_in_paste AND coalesce(n.first_subkind, '') <> 'ecc' AND n.xid IS NULL AND n.kernel_line IS NULL
                       AND NOT regexp_matches(coalesce(n.error_message, ''), '(?i)fell off the bus|fallen off the bus')
                       THEN 'lone-paste-failure'
                  -- (after the paste's own grades, which say the same medium) NCCL's own report of a CUDA call its
                  -- transports' set-up made (shm, p2p, NVLS, the transport layer): the platform's IPC, /dev/shm or fabric
                  -- refusing it as often as the rank's GPU (docs/rules.md, session 49)
                  WHEN n.cause = 'cuda-error' AND n.nccl_setup_line THEN 'nccl-setup-cuda-call'
             END AS medium_why
      -- a paste of one rank's lines whose CUDA error is the build's or driver's misfit with the GPU (a kernel image or
      -- symbol missing for its architecture, a runtime newer than the driver: parsers' stack-mismatch): the software stack
      -- every GPU of that model shares, so the paste cannot say the rank was alone; a suspect, said at info (session 59)
      -- so too its exception of a full disk or quota (ENOSPC, EDQUOT): the filesystem the rank wrote to, a node's or every
      -- node's shared one (a dataset cache, a checkpoint directory), not the rank's own; every such pasted lone rank in
      -- the corpus is a control (batch 369's ms-swift#3551)
      FROM (SELECT n.* REPLACE (CASE WHEN n.low_why IS NOT NULL OR NOT n.lone_in_paste OR n.confidence <> 'high' THEN n.low_why
                                     WHEN n.cause = 'cuda-error' AND coalesce(n.first_subkind, '') = 'stack-mismatch'
                                     THEN 'lone-paste-stack-mismatch'
                                     -- NCCL's own report of a CUDA failure launching its collective (`enqueue.cc:1087 NCCL
                                     -- WARN Cuda failure 'misaligned address'`): the collective's kernel, which every member
                                     -- runs alike; every such lone paste in the corpus is a control (batch 366's mmengine#1557)
                                     -- (not a fault that may be the GPU's own: a launch failure, ECC, a lost device)
                                     WHEN n.cause = 'cuda-error' AND regexp_matches(coalesce(n.first_line, ''), 'enqueue\.cc:\d{1,6} NCCL WARN Cuda failure')
                                          AND coalesce(n.first_subkind, '') NOT IN ('launch-failure', 'ecc', 'device-lost', 'nvlink')
                                     THEN 'lone-paste-nccl-launch'
                                     -- CUDA graph capture's refusal (`operation failed due to a previous error during
                                     -- capture`, cudaErrorStreamCaptureInvalidated/Unsupported, `operation not permitted when
                                     -- stream is capturing`): the program's or library's stream use under capture, which
                                     -- every rank capturing the same graph meets alike, not its GPU (not where the line is a
                                     -- GPU's own fault or an Xid of its GPU is tied to it); the one such lone paste in the
                                     -- corpus is a control (session 61: Megatron-Bridge#1901)
                                     WHEN n.cause = 'cuda-error' AND regexp_matches(coalesce(n.error_message, '') || ' ' || coalesce(n.first_line, ''),
                                          '(?i)\berror during capture\b|\bcudaErrorStreamCapture[A-Za-z]{0,20}\b|\bnot permitted when stream is capturing\b')
                                          AND coalesce(n.first_subkind, '') NOT IN ('launch-failure', 'ecc', 'device-lost', 'nvlink') AND n.xid IS NULL
                                     THEN 'lone-paste-graph-capture'
                                     WHEN n.cause = 'python-exception' AND regexp_matches(coalesce(n.error_message, ''),
                                          '(?i)no space left on device|disk quota exceeded|\[Errno (?:28|122)\]|\bStorageFull\b|not enough disk space')
                                     THEN 'lone-paste-storage-full'
                                     -- autograd's refusal of the program's graph: a loss with no path to a trainable
                                     -- parameter (`element 0 of tensors does not require grad and does not have a grad_fn`),
                                     -- a view its graph needs modified in place (`... is a view and its base ... has been
                                     -- modified inplace`): the model, its trainable set and its code, every rank's alike at
                                     -- its first backward; every such lone paste in the corpus is a control (session 60:
                                     -- DiffSynth-Studio#703, Liger-Kernel#48). Not DDP's unused parameters (`Expected to have
                                     -- finished reduction`): one rank's batch can leave a head without gradients
                                     -- (ultralytics#24612's culprit)
                                     WHEN n.cause = 'python-exception' AND regexp_matches(coalesce(n.error_type, ''), '(?:^|\.)RuntimeError$')
                                          AND regexp_matches(coalesce(n.error_message, ''),
                                          'does not require grad and does not have a grad_fn|\bis a view and its base (?:or another view of its base )?has been modified inplace\b')
                                     THEN 'lone-paste-autograd-graph'
                                     -- a refusal saying the setup, mode or combination is not supported (`You can't train a
                                     -- model ... loaded with device_map='auto' in any distributed mode`, `DeepSpeed Zero-3 is
                                     -- not compatible with passing a device_map`, `Architecture X not supported`, `Cannot copy
                                     -- out of meta tensor`: a model left on meta by ZeRO-3's loading): the config and launch
                                     -- every rank shares; every such lone paste in the corpus is a control (session 60:
                                     -- lerobot#2270, Qwen-VL-Series-Finetune#7, SpecForge#58). Not a warning raised as an
                                     -- error, not Dynamo's Unsupported (a region one rank compiles), not a CUDA/NCCL call's
                                     -- refusal (a GPU or a pair's), not one naming the rank's own device or rank index
                                     WHEN n.cause = 'python-exception'
                                          AND NOT regexp_matches(coalesce(n.error_type, ''), '(?i)warning$|(?:^|\.)unsupported$')
                                          AND regexp_matches(coalesce(n.error_message, ''),
                                          '(?i)\b(?:is |are )?not (?:currently |yet )?supported\b|\bdoes not support\b|\bis only supported\b|\bonly supports\b|\b(?:is|are) not compatible with\b|\bin any distributed mode\b|--num_processes=1\b|\bcannot copy out of meta tensor\b')
                                          AND NOT regexp_matches(coalesce(n.error_message, ''),
                                          '(?i)cuda error|cuda failure|cudaerror|\bnccl\b|invalid device ordinal|\bcuda:\d|\bgpus? ?\d|\bdevice \d|\b(?:local_)?rank[ _-]?\d')
                                     THEN 'lone-paste-setup-refusal'
                                     -- the program's own structure refused: tensors placed on two devices (`Expected all
                                     -- tensors to be on the same device`), an attribute asked of DDP's or FSDP's wrapper
                                     -- instead of its module, a device-mesh dimension the config never built: the code and
                                     -- config every rank runs, alike; every such lone paste in the corpus is a control
                                     -- (session 61: huatuogpt-o1#9, sd-scripts#1551, torchtitan#1396). Not a KeyError as a
                                     -- whole, nor any AttributeError: a rank's own batch or path raises those (UNITER#42,
                                     -- nanotron#405, the torch runs' injected per-rank KeyError)
                                     WHEN n.cause = 'python-exception' AND regexp_matches(coalesce(n.error_message, ''),
                                          '\bExpected all tensors to be on the same device\b|''(?:DistributedDataParallel|FullyShardedDataParallel)'' object has no attribute\b|\bMesh dimension ''[^'']{1,80}'' does not exist\b')
                                     THEN 'lone-paste-program-structure'
                                     -- a check comparing this rank's state with another rank's (DeepSpeed's `Detected a
                                     -- disagreement on list length between rank0 and rank7`): it fires on whichever rank
                                     -- compares, not on the one that diverged (session 61: LlamaFactory#10224, a control)
                                     WHEN n.cause = 'python-exception' AND regexp_matches(coalesce(n.error_message, ''),
                                          '\bDetected a disagreement on [a-z ]{1,40} between rank ?\d{1,6} and rank ?\d{1,6}')
                                     THEN 'lone-paste-cross-rank-check'
                                     -- an installed library's own assertion (an AssertionError, a NotImplementedError whose
                                     -- innermost frame is site-/dist-packages code: parsers/log_library_frame.py), its
                                     -- message naming no device, rank, CUDA/NCCL call, file, path, shape or size: the library
                                     -- and config every rank runs, alike; every such lone paste in the corpus is a control
                                     -- (session 62: ms-swift#6670's vLLM LoRA assert). Not a ValueError or TypeError (a
                                     -- library's refusal of one rank's data item: `expected 3 channels, got 4`), nor a
                                     -- RuntimeError, IndexError, KeyError, AttributeError or I/O error (streaming#677,
                                     -- nanotron#405, deit#76: culprits), nor an assert in the program's own script or a
                                     -- source checkout (lm-evaluation-harness#891's culprit)
                                     WHEN n.cause = 'python-exception'
                                          AND regexp_matches(coalesce(n.error_type, ''), '(?:^|\.)(?:AssertionError|NotImplementedError)$')
                                          AND NOT regexp_matches(coalesce(n.error_message, ''),
                                          '(?i)cuda|nccl|\bgpus?\b|\bdevices?\b|\b(?:local_|global_)?rank ?[_-]?\d|\bthis (?:rank|process|worker)\b|\bshapes?\b|\bsizes? ?\(|batch_size|\bfiles?\b|\bpath\b|/|\bindex\b|\bsample|\bmemory\b')
                                          AND EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = n.job_key AND x.kind = 'python_exception'
                                                      AND x.library_frame IS NOT NULL AND left(x.line, 300) = n.first_line)
                                     THEN 'lone-paste-library-check' END AS low_why)
      FROM (SELECT n.*,
                   -- NCCL's WARN of a CUDA call its transports' set-up made (shm, p2p, NVLS, the transport layer)
                   regexp_matches(coalesce(n.first_line, ''),
                       '(?:include/shm\.h|transport(?:/[a-z_]{1,20})?\.cc|p2p\.cc|shm\.cc):\d{1,6} NCCL WARN Cuda failure') AS nccl_setup_line,
                   -- a CUDA call refused as an invalid argument (cudaErrorInvalidValue: pin_memory's host registration, an
                   -- IPC handle, a graph's replay) outside NCCL's transport set-up: the call's, which every rank running the
                   -- code makes alike, or the platform's, not the GPU's; a suspect, said at info (session 49: medium;
                   -- session 50: low)
                   CASE WHEN n.confidence = 'high' AND len(n.culprit_ranks) > 0 AND n.cause = 'cuda-error'
                             AND regexp_matches(coalesce(n.error_message, ''), '^\s*invalid argument\s*$')
                             AND NOT nccl_setup_line
                        THEN 'cuda-invalid-argument' END AS low_why,
                   len(n.culprit_ranks) = 1 AND coalesce(n.victims, 0) = 0
                   AND coalesce(n.watchdog_victims, 0) = 0 AND len(coalesce(n.victim_ranks, [])) = 0
                   -- every line of the job is from a pod import-logs made up from a paste, and none is another rank's
                   AND EXISTS (SELECT 1 FROM k10s_paste_job p WHERE p.job_key = n.job_key
                               AND list_has_all([n.culprit_ranks[1]], p.tagged_ranks)) AS lone_in_paste,
                   -- the culprit's exception is mp.spawn's report of it and nothing else of it or of another process
                   -- says a failure: no victim, no watchdog, no line of that rank but the report and its traceback
                   len(n.culprit_ranks) = 1 AND n.cause = 'python-exception' AND coalesce(n.victims, 0) = 0
                   AND coalesce(n.watchdog_victims, 0) = 0 AND len(coalesce(n.victim_ranks, [])) = 0
                   AND EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = n.job_key AND x.kind = 'process_exit'
                               AND x.subkind = 'spawn' AND x.rank_resolved = n.culprit_ranks[1]
                               AND x.line LIKE '%terminated with the following error%')
                   AND NOT EXISTS (SELECT 1 FROM k10s_log y WHERE y.job_key = n.job_key AND y.rank_resolved = n.culprit_ranks[1]
                                   AND NOT (y.kind = 'process_exit' AND y.subkind = 'spawn') AND y.kind <> 'python_exception')
                   AS spawn_first_only
            FROM (SELECT n.* REPLACE (CASE WHEN s.pod IS NULL AND w.ranks IS NULL THEN n.culprit_ranks ELSE []::BIGINT[] END AS culprit_ranks,
                                      CASE WHEN s.pod IS NULL AND w.ranks IS NOT NULL THEN 'none' ELSE n.confidence END AS confidence,
                                      coalesce('rank ' || n.culprit_ranks[1] || ' is known only by its launcher''s report of its '
                                               || 'exit status (' || s.status || '), and the log of ' || s.pod || ' holds no '
                                               || 'failure report of its own (no error, traceback, failure table or exit line: '
                                               || 'it is empty or stops)' || CASE WHEN s.pods > 1 THEN ', nor do ' || (s.pods - 1)
                                               || ' other pod(s)''' ELSE '' END || ': that node was likely lost whole (killed '
                                               || 'with its launcher, its host crashed or reclaimed) and rank ' || n.culprit_ranks[1]
                                               || '''s exit may be the consequence of its peers'' loss: no single culprit',
                                               'rank ' || n.culprit_ranks[1] || '''s error was logged by its worker''s exception handler ('
                                               || w.site || ', ' || w.ts || ') in the same second as rank(s) '
                                               || array_to_string(w.ranks, ', ') || ' began logging theirs from the same handler, '
                                               || 'their errors cut by the paste: workers raising at once at one step of the same code, '
                                               || 'whichever record the paste shows whole: no single culprit',
                                               n.no_culprit_reason) AS no_culprit_reason),
                         s.pod IS NOT NULL AS node_silent,
                         s.pod IS NULL AND w.ranks IS NOT NULL AS records_alike
                  -- (session 71) one rank known only by its launcher's report of an exit status (tier 2, > 0, no line of
                  -- its own in the job) while another node's log given beside it (a captured pod's, an imported file's)
                  -- holds no failure report of its own (no error, traceback, table or exit line: empty, or cut mid-run):
                  -- that node was lost whole (killed with its agent, its host crashed or reclaimed) and the exit may be its
                  -- peers' loss's consequence: no rank named (docs/rules.md, "Session 71: a node whose log went silent")
                  FROM k10s_incident n
                  LEFT JOIN LATERAL (
                      SELECT arg_min(p.pod_key || coalesce(' on ' || p.node, '') || ' (ranks ' || p.ranks || ')', p.pod_key) AS pod,
                             count(*) AS pods,
                             (SELECT min(b.status) FROM k10s_incident_best b WHERE b.job_key = n.job_key
                              AND b.incident = n.incident AND b.rank_eff = n.culprit_ranks[1]) AS status
                      FROM (SELECT r.pod_key, min(r.node) AS node, array_to_string(list(DISTINCT r.rank ORDER BY r.rank), ', ') AS ranks
                            FROM k10s_rank r
                            WHERE len(n.culprit_ranks) = 1 AND n.confidence = 'medium' AND n.first_kind IN ('torchrun_failure', 'process_exit')
                              AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = n.job_key AND x.rank_resolved = n.culprit_ranks[1]
                                              AND x.kind NOT IN ('process_exit', 'torchrun_failure', 'torchrun_sigterm', 'rank_spawn'))
                              AND (SELECT bool_and(b.tier = 2 AND b.kind IN ('process_exit', 'torchrun_failure') AND b.status > 0)
                                   FROM k10s_incident_best b WHERE b.job_key = n.job_key AND b.incident = n.incident
                                     AND b.rank_eff = n.culprit_ranks[1])
                              AND r.job_key = n.job_key AND r.pod_key IS DISTINCT FROM n.first_pod
                              AND (r.pod_uid IN (SELECT pod_uid FROM pod_runtime WHERE spec_known)
                                   OR r.pod_uid IN (SELECT pod_uid FROM pods
                                                    WHERE json_extract_string(labels_json, '$."k10s.io/imported-file"') IS NOT NULL))
                              AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = n.job_key AND x.pod_key = r.pod_key
                                              AND x.kind NOT IN ('training_step', 'rank_joining', 'rank_spawn', 'rank_stream'))
                            GROUP BY r.pod_key) p
                      HAVING count(*) > 0) s ON true
                  -- (session 72) the culprit's failure line is one record of a worker's exception log (vLLM's multiproc
                  -- workers: `(VllmWorker rank=3 pid=268) ERROR 05-12 19:01:18 [multiproc_executor.py:470] RuntimeError: …`,
                  -- `(Worker_TP3 pid=…)`), and another worker's record from the same handler (file:line) is stamped the same
                  -- second, its own error cut (no other failure of that rank in the log): the handler logs a worker's whole
                  -- traceback line by line as it raises, so two workers raised at once at one step of the code they share
                  -- (a kernel every tensor-parallel rank runs): no single culprit (docs/rules.md, "Session 72: workers
                  -- raising in the same second"). A worker that logs its error a second or more later, or whose own error
                  -- differs, is not this reading (gpustack-6019: ranks 8 and 13 fail on rank 12's loss 2 s after it)
                  LEFT JOIN LATERAL (
                      SELECT h.site, h.ts, list(DISTINCT o.reporter_rank ORDER BY o.reporter_rank) AS ranks
                      FROM (SELECT regexp_extract(n.first_line, '\) ERROR (\d\d-\d\d \d\d:\d\d:\d\d) \[([\w.]+:\d+)\]', 1) AS ts,
                                   regexp_extract(n.first_line, '\) ERROR (\d\d-\d\d \d\d:\d\d:\d\d) \[([\w.]+:\d+)\]', 2) AS site
                            WHERE len(n.culprit_ranks) = 1
                              AND regexp_matches(coalesce(n.first_line, ''), '\([A-Za-z]*Worker(?:_TP\d+| rank=\d+)(?: pid=[^)\s]{1,20})?\) ERROR \d\d-\d\d \d\d:\d\d:\d\d \[[\w.]+:\d+\]')) h
                      JOIN k10s_log o ON o.job_key = n.job_key AND o.kind = 'worker_record' AND o.error_message = h.site || ' ' || h.ts
                       AND o.reporter_rank IS DISTINCT FROM n.culprit_ranks[1]
                      -- its own error, where the log holds it, is the culprit's (the same message), or none is
                      WHERE NOT EXISTS (SELECT 1 FROM k10s_log e WHERE e.job_key = n.job_key AND e.rank_resolved = o.reporter_rank
                                        AND e.kind <> 'worker_record' AND e.error_message IS NOT NULL
                                        AND e.error_message IS DISTINCT FROM n.error_message)
                      GROUP BY h.site, h.ts) w ON true) n) n) n) i
LEFT JOIN k10s_hang_verdict v ON v.job_key = i.job_key
WHERE i.cause IS NOT NULL AND i.cause <> 'cuda-oom'
QUALIFY row_number() OVER (PARTITION BY i.job_key ORDER BY i.incident) = 1
UNION ALL BY NAME
-- no rank failed on its own (no incident), but every process of the job reports, by its own signal handler (Open MPI's
-- `Signal: Bus error (7)`, gfortran's `Program received signal SIGILL`), the same fatal signal within a minute (or in a
-- log without a clock): a common-mode failure of the job or its platform (a container's /dev/shm too small for every
-- process alike), said with its cause and no rank (docs/rules.md, "Session 30: one signal in every process")
SELECT s.job_key AS job,
       coalesce(k10s_signal_cause(-s.signo), 'signal-' || s.signo) AS cause,
       'warning' AS severity, []::BIGINT[] AS ranks, []::VARCHAR[] AS pods, []::VARCHAR[] AS nodes, []::VARCHAR[] AS gpus,
       s.t0 AS started_at, s.t1 AS ended_at, 'none' AS confidence, 'signal-alike' AS decided_by, 'signal' AS error_type,
       s.sig AS error_message, NULL::BIGINT AS xid, NULL::VARCHAR AS xid_meaning, NULL::VARCHAR AS kernel_line,
       left(s.line, 300) AS failure_line, s.subkind AS failure_subkind, []::BIGINT[] AS together_ranks,
       'every one of the job''s ' || s.n || ' processes reported the same signal (' || s.sig || ') by its own handler, '
           || CASE WHEN s.t0 IS NULL THEN 'in lines without a clock' ELSE 'within ' || (epoch(s.t1) - epoch(s.t0))::BIGINT || ' s' END
           || ', and none failed first: a cause common to them all (the code, the container or the host they share), '
           || 'no single culprit' AS no_culprit_reason,
       0::BIGINT AS victims, []::BIGINT[] AS victim_ranks, 0::BIGINT AS watchdog_victims, NULL::BIGINT AS job_gpus,
       NULL::DOUBLE AS gpu_hours_lost, 1::BIGINT AS incident, 1::BIGINT AS incidents, NULL::VARCHAR AS hang_verdict
FROM (SELECT job_key, -exit_code AS signo, arg_min(error_message, (line_no, error_message)) AS sig, arg_min(subkind, (line_no, subkind)) AS subkind,
             arg_min(line, (line_no, line)) AS line, min(ts) AS t0, max(ts) AS t1,
             greatest(count(DISTINCT (incarnation_uid, nccl_host, pid)) FILTER (WHERE pid IS NOT NULL),
                      count(DISTINCT event_id) FILTER (WHERE subkind = 'gfortran')) AS n
      FROM k10s_log WHERE kind = 'native_signal' AND job_key IS NOT NULL AND exit_code < 0 AND (pid IS NOT NULL OR subkind = 'gfortran')
      GROUP BY job_key, exit_code) s
WHERE s.n >= 2 AND s.n >= coalesce((SELECT count(DISTINCT r.rank) FROM k10s_rank r WHERE r.job_key = s.job_key), 0)
  AND (s.t0 IS NULL OR s.t1 <= s.t0 + INTERVAL 1 MINUTE)
  AND s.job_key NOT IN (SELECT job_key FROM k10s_incident WHERE cause IS NOT NULL AND cause <> 'cuda-oom')
  AND (SELECT count(DISTINCT x.exit_code) FROM k10s_log x WHERE x.job_key = s.job_key AND x.kind = 'native_signal') = 1
UNION ALL BY NAME
-- no rank failed on its own (no incident), and a log of the job ends while its processes wait on a JIT-built torch
-- extension: their `Using <root> as PyTorch extensions root...` (and the build's own lines) last, no `Loading extension
-- module` after (parsers/log_ext_build.py): one process builds it under a lock, or a build killed earlier left its
-- `lock` file and every process waits on it; said at info, naming no rank: no rank is at fault (docs/rules.md,
-- "Session 32: leftovers")
SELECT b.job_key AS job, 'build-lock' AS cause, 'info' AS severity, []::BIGINT[] AS ranks, []::VARCHAR[] AS pods,
       []::VARCHAR[] AS nodes, []::VARCHAR[] AS gpus, b.ts AS started_at, NULL::TIMESTAMPTZ AS ended_at, 'none' AS confidence,
       'build-lock' AS decided_by, 'torch extension build' AS error_type, b.root AS error_message, NULL::BIGINT AS xid,
       NULL::VARCHAR AS xid_meaning, NULL::VARCHAR AS kernel_line, left(b.line, 300) AS failure_line, 'waits' AS failure_subkind,
       []::BIGINT[] AS together_ranks,
       b.n || ' process(es) printed `Using ' || b.root || ' as PyTorch extensions root...` and the log ends there, with no '
           || '`Loading extension module` after: they wait on the build of a JIT extension under that root, which one process '
           || 'builds under a lock file; a build killed earlier leaves that lock, and every later process waits on it, no '
           || 'rank at fault' AS no_culprit_reason,
       0::BIGINT AS victims, []::BIGINT[] AS victim_ranks, 0::BIGINT AS watchdog_victims, NULL::BIGINT AS job_gpus,
       NULL::DOUBLE AS gpu_hours_lost, 1::BIGINT AS incident, 1::BIGINT AS incidents, NULL::VARCHAR AS hang_verdict
FROM (SELECT job_key, arg_max(error_message, nranks) AS root, max(nranks) AS n, arg_max(line, nranks) AS line, min(ts) AS ts
      FROM k10s_log WHERE kind = 'ext_build' AND subkind = 'waits' AND job_key IS NOT NULL GROUP BY job_key) b
WHERE b.job_key NOT IN (SELECT job_key FROM k10s_incident WHERE cause IS NOT NULL AND cause <> 'cuda-oom')
UNION ALL BY NAME
-- no rank failed on its own (no incident), and the elastic launcher's own rendezvous failed (parsers/log_rendezvous.py):
-- its store's port was in use on its host (port-in-use), the group never formed (timeout), its store went away
-- (connection), its state could not be kept (state, error): a warning naming no rank; closed by another node's agent,
-- or any of them where a rank raised or waited in a collective (the hang's rule tells that story): info. The telling one is said: port-in-use, timeout, connection, state, error, closed, then
-- time, pod, line (docs/rules.md, "Session 58: the launcher's rendezvous")
SELECT z.job_key AS job, 'rendezvous-' || z.subkind AS cause,
       CASE WHEN z.subkind = 'closed' OR z.ranks_spoke THEN 'info' ELSE 'warning' END AS severity,
       []::BIGINT[] AS ranks, []::VARCHAR[] AS pods, []::VARCHAR[] AS nodes, []::VARCHAR[] AS gpus, z.ts AS started_at,
       NULL::TIMESTAMPTZ AS ended_at, 'none' AS confidence, 'rendezvous' AS decided_by, z.error_type, z.error_message,
       NULL::BIGINT AS xid, NULL::VARCHAR AS xid_meaning, NULL::VARCHAR AS kernel_line, left(z.line, 300) AS failure_line,
       z.subkind AS failure_subkind, []::BIGINT[] AS together_ranks, z.where_said AS no_culprit_reason,
       0::BIGINT AS victims, []::BIGINT[] AS victim_ranks, 0::BIGINT AS watchdog_victims, NULL::BIGINT AS job_gpus,
       NULL::DOUBLE AS gpu_hours_lost, 1::BIGINT AS incident, 1::BIGINT AS incidents, NULL::VARCHAR AS hang_verdict
FROM (SELECT job_key, arg_min(subkind, k) AS subkind, arg_min(error_message, k) AS error_message, arg_min(line, k) AS line,
             arg_min(ts, k) AS ts,
             CASE arg_min(subkind, k) WHEN 'port-in-use' THEN 'DistNetworkError'
                  ELSE 'Rendezvous' || CASE arg_min(subkind, k) WHEN 'error' THEN '' ELSE upper(arg_min(subkind, k)[1]) || arg_min(subkind, k)[2:] END
                       || 'Error' END AS error_type,
             'the elastic launcher''s agent raised it in ' || count(DISTINCT pod) || ' pod log(s) (first in ' || arg_min(pod, k)
                 || '), and no rank failed on its own' AS where_said,
             -- a rank raised or waited in a collective (a hang's evidence, another rule's finding): the rendezvous is said at info
             job_key IN (SELECT x.job_key FROM k10s_log x WHERE x.rank_resolved IS NOT NULL AND x.kind IN
                         ('python_exception', 'nccl_watchdog_timeout', 'watchdog_exception_summary', 'nccl_desync', 'collective_mismatch'))
                 AS ranks_spoke
      FROM (SELECT *, (CASE subkind WHEN 'port-in-use' THEN 0 WHEN 'timeout' THEN 1 WHEN 'connection' THEN 2 WHEN 'state' THEN 3
                                    WHEN 'error' THEN 4 ELSE 5 END,
                       ts, pod, line_no, line) AS k
            FROM k10s_log WHERE kind = 'rendezvous' AND job_key IS NOT NULL) e
      GROUP BY job_key) z
WHERE z.job_key NOT IN (SELECT job_key FROM k10s_incident WHERE cause IS NOT NULL AND cause <> 'cuda-oom')
UNION ALL BY NAME
-- (session 72) the job failed, a launcher reporting a process's error exit (not a signal it sent), but every failure
-- line of its first incident is a victim's: waits that timed out and peers lost (gloo's send/recv timeouts and closed
-- connections, NCCL watchdog timeouts and remote errors), each exit reported under only those (queries/_failure_line.sql
-- victim_role); no rank failed on its own in any incident, no hang evidence decides, no other no-rank reading (signal,
-- extension build, rendezvous) speaks: the process they waited for printed nothing (killed, or its output elsewhere).
-- Said at warning with no rank, never a victim (docs/rules.md, "Session 72: a failed job whose only failure lines are
-- its victims'")
SELECT w.job_key AS job, 'victims-only' AS cause, 'warning' AS severity, []::BIGINT[] AS ranks, []::VARCHAR[] AS pods,
       []::VARCHAR[] AS nodes, []::VARCHAR[] AS gpus, i.first_failure_at AS started_at, i.abort_at AS ended_at,
       'none' AS confidence, 'victims-only' AS decided_by, w.wait_type AS error_type, w.wait_message AS error_message,
       NULL::BIGINT AS xid, NULL::VARCHAR AS xid_meaning, NULL::VARCHAR AS kernel_line, left(w.wait_line, 300) AS failure_line,
       w.wait_subkind AS failure_subkind, []::BIGINT[] AS together_ranks,
       'the job failed: ' || CASE WHEN len(w.reported) = 1 THEN 'a launcher reports rank ' ELSE 'launchers report ranks ' END
           || array_to_string(w.reported, ', ') || ' exiting with status ' || array_to_string(w.statuses, ', ') || ', '
           || CASE WHEN len(w.reported) = 1 THEN 'its log' ELSE 'their logs' END || ' holding only waits or peer losses ('
           || w.waits || ' line(s) in ' || w.wait_pods || ' pod log(s), first `' || left(w.wait_message, 140) || '`), '
           || 'none naming the rank that failed; no rank''s own error is in the logs: no single rank: the failing rank '
           || 'printed nothing; its peers'' waits are all that was logged' AS no_culprit_reason,
       0::BIGINT AS victims, w.reported AS victim_ranks, i.watchdog_victims, i.job_gpus, i.gpu_hours_lost,
       w.incident, 1::BIGINT AS incidents, NULL::VARCHAR AS hang_verdict
FROM (SELECT job_key, incident,
             list(DISTINCT rank_eff ORDER BY rank_eff) FILTER (WHERE is_exit AND rank_eff IS NOT NULL) AS reported,
             count(DISTINCT rank_eff) FILTER (WHERE is_exit AND rank_eff IS NOT NULL) AS reported_n,
             list(DISTINCT status ORDER BY status) FILTER (WHERE is_exit) AS statuses,
             count(*) FILTER (WHERE NOT is_exit) AS waits, count(DISTINCT pod_key) FILTER (WHERE NOT is_exit) AS wait_pods,
             arg_min(error_type, (line_no, event_id)) FILTER (WHERE NOT is_exit) AS wait_type,
             arg_min(error_message, (line_no, event_id)) FILTER (WHERE NOT is_exit) AS wait_message,
             arg_min(line, (line_no, event_id)) FILTER (WHERE NOT is_exit) AS wait_line,
             arg_min(subkind, (line_no, event_id)) FILTER (WHERE NOT is_exit) AS wait_subkind,
             bool_and(role = 'victim') AS all_victims,
             bool_and(is_exit OR kind IN ('python_exception', 'nccl_watchdog_timeout', 'watchdog_exception_summary',
                                          'nccl_remote_error', 'nccl_error_other')) AS only_waits
      FROM (SELECT *, kind IN ('process_exit', 'torchrun_failure') AND status IS NOT NULL AND status <> 0 AS is_exit
            FROM k10s_incident_line WHERE job_key IS NOT NULL AND kind <> 'torchrun_sigterm') l
      GROUP BY job_key, incident) w
JOIN k10s_incident i ON i.job_key = w.job_key AND i.incident = w.incident
WHERE i.cause IS NULL AND w.all_victims AND w.only_waits AND w.reported_n > 0 AND w.waits > 0
  AND NOT list_has_any(w.statuses, [-15, -9, -2, -1])
  AND w.job_key NOT IN (SELECT job_key FROM k10s_incident WHERE cause IS NOT NULL)
  AND w.job_key NOT IN (SELECT job_key FROM k10s_hang_verdict)
  -- a wait that names its rank (a watchdog's timeout, gloo's wait of a known rank): nccl-hang speaks of the hang
  AND w.job_key NOT IN (SELECT job_key FROM k10s_gloo_wait WHERE job_key IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = w.job_key AND x.rank_resolved IS NOT NULL
                  AND x.kind IN ('nccl_watchdog_timeout', 'watchdog_exception_summary'))
  AND NOT EXISTS (SELECT 1 FROM k10s_log x WHERE x.job_key = w.job_key AND x.kind IN ('rendezvous', 'ext_build', 'native_signal'))
QUALIFY row_number() OVER (PARTITION BY w.job_key ORDER BY w.incident) = 1
ORDER BY job
