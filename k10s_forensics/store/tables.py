"""The derived tables: names, columns, types and meaning (the public SQL surface).

Every table listed here is written to ``tables/<name>.parquet`` by ``k10s rebuild`` (empty
when its sources are absent) and is a DuckDB view of that name in ``k10s sql``. The key
columns fixed by the bundle-format spec come first in each table; the rest are ours.
docs/bundle-format.md is checked against this module by a test.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

TS = pa.timestamp("us", tz="UTC")
STR = pa.string()
I32 = pa.int32()
I64 = pa.int64()
F64 = pa.float64()
BOOL = pa.bool_()
TAINT = pa.struct([("key", STR), ("value", STR), ("effect", STR)])
TOLERATION = pa.struct([("key", STR), ("operator", STR), ("value", STR), ("effect", STR)])


@dataclass(frozen=True)
class Column:
    name: str
    type: pa.DataType
    doc: str


@dataclass(frozen=True)
class TableDef:
    name: str
    grain: str
    sources: str
    columns: tuple[Column, ...]

    @functools.cached_property
    def schema(self) -> pa.Schema:
        return pa.schema([(c.name, c.type) for c in self.columns])

    @functools.cached_property
    def _empty(self) -> pa.Table:
        return self.schema.empty_table()

    def empty(self) -> pa.Table:
        """The table with no rows (one per process: Arrow tables are immutable)."""
        return self._empty


def _t(name: str, grain: str, sources: str, *cols: tuple[str, pa.DataType, str]) -> TableDef:
    return TableDef(name, grain, sources, tuple(Column(*c) for c in cols))


TABLES: tuple[TableDef, ...] = (
    _t(
        "nodes", "node (last listing)", "raw/objects kind=Node",
        ("node", STR, "metadata.name"),
        ("ready", BOOL, "Ready condition is True"),
        ("unschedulable", BOOL, "spec.unschedulable (cordoned)"),
        ("gpu_product", STR, "nvidia.com/gpu.product label (GPU feature discovery), else nvidia-smi product"),
        ("gpu_capacity", I64, "status.capacity of nvidia.com/gpu (plus MIG resources nvidia.com/mig-*)"),
        ("gpu_allocatable", I64, "status.allocatable of the same; less than capacity = GPUs unhealthy in the device plugin"),
        ("internal_ip", STR, "InternalIP address"),
        ("taints", pa.list_(TAINT), "spec.taints"),
        ("uid", STR, "metadata.uid"),
        ("created_at", TS, "metadata.creationTimestamp"),
        ("captured_at", TS, "time of the listing this row comes from"),
        ("ready_reason", STR, "reason of the Ready condition"),
        ("ready_changed_at", TS, "lastTransitionTime of the Ready condition"),
        ("gpu_memory_mib", I64, "nvidia.com/gpu.memory label (MiB)"),
        ("gpu_count_label", I64, "nvidia.com/gpu.count label"),
        ("mig_strategy", STR, "nvidia.com/mig.strategy label"),
        ("instance_type", STR, "node.kubernetes.io/instance-type label"),
        ("kubelet_version", STR, "status.nodeInfo.kubeletVersion"),
        ("hostname", STR, "Hostname address or kubernetes.io/hostname label"),
        ("addresses", pa.list_(STR), "every address of the node"),
        ("labels_json", STR, "metadata.labels as JSON text"),
        ("conditions_json", STR, "status.conditions as JSON text"),
        ("gpu_resources_json", STR, "per GPU resource (nvidia.com/gpu, nvidia.com/mig-<profile>, ...): capacity and allocatable, JSON"),
        ("evidence", STR, "null: listed by capture; prometheus: from kube-state-metrics history (node not listed)"),
    ),
    _t(
        "gpus", "physical GPU or MIG device", "raw/exec source=nvidia-smi-xml|nvidia-smi-csv; raw/scrapes dcgm-exporter labels",
        ("node", STR, "node the GPU is in"),
        ("gpu_uuid", STR, "GPU-... (MIG-... for a MIG device)"),
        ("gpu_index", I32, "NVML index on the host (never used to join)"),
        ("pci_bus_id", STR, "normalised lower-case dddd:bb:dd.f"),
        ("product", STR, "product name, e.g. NVIDIA H100 80GB HBM3"),
        ("memory_total_mib", I64, "framebuffer total (MiB)"),
        ("driver_version", STR, "driver version"),
        ("cuda_version", STR, "CUDA version reported by the driver"),
        ("source", STR, "nvidia-smi-xml, nvidia-smi-csv or dcgm-exporter (best source wins)"),
        ("is_mig", BOOL, "true for a MIG device row"),
        ("mig_mode", STR, "current MIG mode of the physical GPU (Enabled/Disabled/N/A)"),
        ("parent_gpu_uuid", STR, "physical GPU of a MIG device"),
        ("mig_profile", STR, "MIG profile, e.g. 1g.10gb"),
        ("gpu_instance_id", I32, "MIG GPU instance id"),
        ("serial", STR, "board serial"),
        ("power_limit_w", F64, "current/enforced power limit (W)"),
        ("max_sm_clock_mhz", F64, "max SM clock (MHz)"),
        ("ecc_sbe_volatile", I64, "volatile correctable ECC errors"),
        ("ecc_dbe_volatile", I64, "volatile uncorrectable ECC errors"),
        ("ecc_sbe_aggregate", I64, "aggregate correctable ECC errors"),
        ("ecc_dbe_aggregate", I64, "aggregate uncorrectable ECC errors"),
        ("retired_pages", I64, "retired pages (sbe+dbe), where reported"),
        ("remapped_rows_uncorrectable", I64, "uncorrectable remapped rows"),
        ("remapped_rows_pending", BOOL, "a row remap is pending a GPU reset"),
        ("remapped_rows_failure", BOOL, "row remapping failed"),
        ("first_seen_at", TS, "first sample that showed the GPU"),
        ("last_seen_at", TS, "last sample that showed the GPU"),
    ),
    _t(
        "pods", "pod incarnation (uid)", "raw/objects kind=Pod",
        ("namespace", STR, "metadata.namespace"),
        ("pod", STR, "metadata.name (recycled across restarts: key by pod_uid)"),
        ("pod_uid", STR, "metadata.uid"),
        ("node", STR, "spec.nodeName"),
        ("phase", STR, "status.phase at the last listing of this uid"),
        ("pod_ip", STR, "status.podIP"),
        ("created_at", TS, "metadata.creationTimestamp"),
        ("started_at", TS, "status.startTime"),
        ("gpu_request", I64, "GPUs requested by the pod (max of init, sum of app containers; nvidia.com/gpu and MIG resources)"),
        ("finished_at", TS, "latest terminated finishedAt of its containers when all ended, else deletionTimestamp"),
        ("deleted_at", TS, "metadata.deletionTimestamp"),
        ("host_ip", STR, "status.hostIP"),
        ("pod_ips", pa.list_(STR), "status.podIPs plus Multus network-status IPs"),
        ("host_network", BOOL, "spec.hostNetwork"),
        ("owner_kind", STR, "kind of the controlling owner reference"),
        ("owner_name", STR, "name of the controlling owner reference"),
        ("job_kind", STR, "training-job kind the pod belongs to (PyTorchJob, JobSet, TrainJob, Job, MPIJob, RayJob, ...)"),
        ("job", STR, "training-job name the pod belongs to"),
        ("queue_name", STR, "kueue.x-k8s.io/queue-name label"),
        ("scheduler_name", STR, "spec.schedulerName"),
        ("priority_class", STR, "spec.priorityClassName"),
        ("reason", STR, "status.reason (Evicted, ...)"),
        ("message", STR, "status.message"),
        ("scheduled", BOOL, "PodScheduled condition is True"),
        ("unschedulable_message", STR, "PodScheduled=False message"),
        ("tolerations", pa.list_(TOLERATION), "spec.tolerations"),
        ("node_selector_json", STR, "spec.nodeSelector as JSON text"),
        ("has_node_affinity", BOOL, "spec.affinity.nodeAffinity is set"),
        ("labels_json", STR, "metadata.labels as JSON text"),
        ("first_seen_at", TS, "first listing that showed this uid"),
        ("last_seen_at", TS, "last listing that showed this uid"),
        ("replica_type", STR, "training.kubeflow.org/replica-type (else job-role), lower case: master/worker/launcher/..."),
        ("replica_index", I64, "training.kubeflow.org/replica-index label"),
        ("completion_index", I64, "batch.kubernetes.io/job-completion-index label or annotation (Indexed Job, JobSet)"),
        ("batch_job", STR, "batch/v1 Job the pod belongs to (batch.kubernetes.io/job-name or job-name label)"),
        ("replicated_job", STR, "jobset.sigs.k8s.io/replicatedjob-name label"),
        ("jobset_job_index", I64, "jobset.sigs.k8s.io/job-index label (Job index within its replicated job)"),
        ("jobset_job_global_index", I64, "jobset.sigs.k8s.io/job-global-index label (Job index across the JobSet)"),
        ("rank_env_json", STR, "rank env vars only (RANK, LOCAL_RANK, WORLD_SIZE, PET_NODE_RANK, PET_NPROC_PER_NODE, ...), fieldRefs resolved, JSON"),
        ("raw_row", I64, "row of the pod's last listing in raw/objects.parquet"),
        ("evidence", STR, "null: listed by capture; prometheus: rebuilt from kube-state-metrics history (pod gone before capture)"),
    ),
    _t(
        "containers", "container of a pod incarnation", "raw/objects kind=Pod (status.containerStatuses)",
        ("namespace", STR, ""),
        ("pod", STR, ""),
        ("pod_uid", STR, ""),
        ("container", STR, "container name"),
        ("restart_count", I64, "restartCount"),
        ("state", STR, "running, waiting or terminated"),
        ("reason", STR, "reason of the current state (CrashLoopBackOff, OOMKilled, Error, ...)"),
        ("exit_code", I32, "exit code of the current terminated state"),
        ("last_reason", STR, "reason of lastState.terminated"),
        ("last_exit_code", I32, "exit code of lastState.terminated"),
        ("last_finished_at", TS, "finishedAt of lastState.terminated"),
        ("init", BOOL, "an init container"),
        ("image", STR, "image"),
        ("ready", BOOL, "ready"),
        ("started_at", TS, "running/terminated startedAt of the current state"),
        ("finished_at", TS, "terminated finishedAt of the current state"),
        ("last_started_at", TS, "startedAt of lastState.terminated"),
        ("gpu_request", I64, "GPUs this container requests"),
        ("memory_limit_bytes", I64, "memory limit"),
        ("message", STR, "message of the current state"),
        ("last_message", STR, "message of lastState.terminated"),
    ),
    _t(
        "jobs", "training job", "raw/objects kinds PyTorchJob, MPIJob, TrainJob, JobSet, Job, RayJob, ...",
        ("namespace", STR, ""),
        ("job", STR, "metadata.name"),
        ("kind", STR, "PyTorchJob, TrainJob, JobSet, Job, MPIJob, RayJob, ..."),
        ("uid", STR, "metadata.uid"),
        ("created_at", TS, "metadata.creationTimestamp"),
        ("state", STR, "Created/Running/Succeeded/Failed/Restarting/Suspended/Pending (last true condition)"),
        ("world_size", I64, "number of training processes: replicas x nproc_per_node"),
        ("api_version", STR, ""),
        ("replicas", I64, "number of worker pods the spec asks for"),
        ("nproc_per_node", I64, "processes per pod (1 when not set)"),
        ("gpus_per_pod", I64, "GPUs requested per worker pod"),
        ("queue_name", STR, "kueue.x-k8s.io/queue-name label"),
        ("suspended", BOOL, "spec.suspend / runPolicy.suspend"),
        ("restart_attempts", I64, "JobSet status.restarts (+ restartsCountTowardsMax), else max container restarts"),
        ("max_restarts", I64, "failurePolicy.maxRestarts / backoffLimit"),
        ("parent_kind", STR, "owner job kind (JobSet under TrainJob, Job under JobSet)"),
        ("parent", STR, "owner job name"),
        ("started_at", TS, "status.startTime"),
        ("finished_at", TS, "status.completionTime"),
        ("message", STR, "message of the last condition"),
        ("master_replicas", I64, "Master/Chief replicas (training-operator jobs; 0 when the spec has none)"),
        ("restarts_count_towards_max", I64, "JobSet status.restartsCountTowardsMax"),
        ("completion_mode", STR, "batch Job spec.completionMode (Indexed/NonIndexed)"),
        ("replica_specs_json", STR, "per replica type / replicated job: replicas, parallelism, gpus_per_pod (JSON)"),
        ("raw_row", I64, "row of the job's last listing in raw/objects.parquet"),
    ),
    _t(
        "ranks", "training process (global rank) of a pod incarnation", "pods + jobs + raw/exec visible-devices + dcgm pod labels",
        ("namespace", STR, ""),
        ("job", STR, "training job (null when the pod belongs to none)"),
        ("rank", I64, "global rank = node_rank x nproc_per_node + local_rank"),
        ("node_rank", I64, "rank of the pod within the job"),
        ("local_rank", I64, "process index within the pod"),
        ("pod", STR, ""),
        ("pod_uid", STR, ""),
        ("node", STR, ""),
        ("gpu_uuid", STR, "GPU of the rank; null when unknown (never guessed)"),
        ("job_kind", STR, ""),
        ("world_size", I64, ""),
        ("nproc_per_node", I64, ""),
        ("replica_type", STR, "master/worker/launcher/node/..."),
        ("replica_index", I64, "index label within the replica type"),
        ("rank_source", STR, "env (RANK/PET_NODE_RANK), label (replica-index, job-completion-index, job-global-index), or pod-name"),
        ("gpu_source", STR, "visible-devices, dcgm-pod-label, or null"),
        ("pci_bus_id", STR, "PCI bus id of gpu_uuid"),
        ("pod_ip", STR, ""),
        ("started_at", TS, "pod started_at"),
        ("finished_at", TS, "pod finished_at"),
        ("rank_confidence", STR, "high: env or labels the cluster set; low: read from the pod's name (rank_source pod-name)"),
    ),
    _t(
        "gpu_samples", "GPU per sample time", "raw/scrapes dcgm-exporter, prometheus-query; raw/exec nvidia-smi-xml, nvidia-smi-csv",
        ("ts", TS, "sample time (scrape time, or the value timestamp)"),
        ("node", STR, ""),
        ("gpu_uuid", STR, ""),
        ("source", STR, "dcgm-exporter, prometheus-query, nvidia-smi-xml, nvidia-smi-csv"),
        ("util_pct", F64, "GPU utilisation 0-100 (reads 100 while spinning in NCCL)"),
        ("sm_active", F64, "DCGM_FI_PROF_SM_ACTIVE ratio 0..1"),
        ("tensor_active", F64, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE ratio 0..1"),
        ("power_w", F64, "power draw (W)"),
        ("fb_used_mib", F64, "framebuffer used (MiB)"),
        ("fb_total_mib", F64, "framebuffer total (MiB); used+free(+reserved) when only those are reported"),
        ("temp_c", F64, "GPU temperature (C)"),
        ("sm_clock_mhz", F64, "SM clock (MHz)"),
        ("throttle_reasons", I64, "clock event / throttle reasons bitmask (NVML)"),
        ("xid", I64, "last Xid code reported (0 = none)"),
        ("namespace", STR, "namespace of the pod using the GPU ('' label = unallocated -> null)"),
        ("pod", STR, "pod using the GPU"),
        ("container", STR, "container using the GPU"),
        ("gr_engine_active", F64, "DCGM_FI_PROF_GR_ENGINE_ACTIVE ratio 0..1"),
        ("dram_active", F64, "DCGM_FI_PROF_DRAM_ACTIVE ratio 0..1"),
        ("mem_clock_mhz", F64, "memory clock (MHz)"),
        ("mem_temp_c", F64, "memory temperature (C)"),
        ("power_limit_w", F64, "power limit (W)"),
        ("ecc_dbe_total", F64, "uncorrectable ECC errors (counter)"),
        ("ecc_sbe_total", F64, "correctable ECC errors (counter)"),
        ("pcie_replay_total", F64, "PCIe replay counter"),
        ("gpu_index", I32, "NVML index on the host"),
        ("pci_bus_id", STR, "normalised dddd:bb:dd.f"),
        ("model_name", STR, "modelName label / product name"),
        ("mig_profile", STR, "GPU_I_PROFILE"),
        ("gpu_instance_id", I32, "GPU_I_ID"),
        ("pod_uid", STR, "pod_uid label where the exporter sets it"),
        ("mem_copy_util_pct", F64, "memory copy utilisation 0-100 (DCGM_FI_DEV_MEM_COPY_UTIL, utilization.memory)"),
    ),
    _t(
        "tcp_samples", "TCP connection per sample time", "raw/exec source=ss",
        ("ts", TS, "when ss ran"),
        ("namespace", STR, "pod ss ran in"),
        ("pod", STR, ""),
        ("node", STR, ""),
        ("local_addr", STR, "local IP (IPv4-mapped IPv6 unwrapped)"),
        ("peer_addr", STR, "peer IP"),
        ("rtt_ms", F64, "smoothed RTT (ms)"),
        ("minrtt_ms", F64, "minimum RTT seen (ms)"),
        ("retrans_total", I64, "lifetime retransmitted segments (absent field = 0)"),
        ("bytes_sent", I64, "bytes sent"),
        ("bytes_retrans", I64, "bytes retransmitted"),
        ("state", STR, "ESTAB, SYN-SENT, ..."),
        ("local_port", I32, ""),
        ("peer_port", I32, ""),
        ("rttvar_ms", F64, "RTT variance (ms)"),
        ("retrans_current", I64, "currently outstanding retransmitted segments"),
        ("recv_q", I64, "Recv-Q bytes"),
        ("send_q", I64, "Send-Q bytes"),
        ("cwnd", I64, "congestion window (segments)"),
        ("bytes_acked", I64, ""),
        ("bytes_received", I64, ""),
        ("segs_out", I64, ""),
        ("lost", I64, "lost segments"),
        ("notsent_bytes", I64, ""),
        ("delivery_rate_bps", F64, "delivery rate (bit/s)"),
        ("send_rate_bps", F64, "send rate (bit/s)"),
        ("busy_ms", I64, ""),
        ("rwnd_limited_ms", I64, ""),
        ("cong_alg", STR, "cubic, bbr, ..."),
        ("raw_row", I64, "row of the ss output in raw/exec.parquet"),
        ("pid", I64, "owning process id (ss -p users:(...,pid=N,...)), null without -p"),
    ),
    _t(
        "log_events", "recognised log line", "raw/logs; raw/exec source=dmesg (kind xid)",
        ("ts", TS, "line timestamp (API timestamps=true prefix; dmesg time)"),
        ("namespace", STR, ""),
        ("pod", STR, ""),
        ("pod_uid", STR, ""),
        ("container", STR, ""),
        ("rank", I64, "global rank named by the line ([rankN]:, [Rank N], torchrun table), null when unknown"),
        ("kind", STR, "nccl_watchdog_timeout, nccl_remote_error, cuda_oom, torchrun_failure, worker_group_restart, nccl_bootstrap, nccl_comm_init, xid, ..."),
        ("line", STR, "the line as logged (without the API timestamp)"),
        ("node", STR, ""),
        ("previous", BOOL, "from the previous container instance"),
        ("line_no", I64, "line number within its log body"),
        ("local_rank", I64, "local rank named by the line"),
        ("seq_num", I64, "NCCL work SeqNum"),
        ("op_type", STR, "ALLREDUCE, BROADCAST, _ALLGATHER_BASE, ..."),
        ("timeout_ms", I64, "Timeout(ms)"),
        ("ran_for_ms", I64, "ran for N milliseconds"),
        ("last_completed_seq", I64, "last completed NCCL work"),
        ("last_enqueued_seq", I64, "last enqueued NCCL work"),
        ("pg", STR, "process group id/name"),
        ("peer_ip", STR, "IP (or host) named by a NCCL WARN / remote error line"),
        ("peer_port", I32, ""),
        ("ip", STR, "own IP from a NCCL Bootstrap / NET/Socket line"),
        ("nccl_host", STR, "hostname in the NCCL line prefix"),
        ("pid", I64, "process id"),
        ("cuda_dev", I32, "CUDA device ordinal"),
        ("bus_id", STR, "PCI bus id (normalised) from NCCL comm lines or Xid lines"),
        ("nranks", I64, "communicator size"),
        ("oom_requested_mib", F64, "Tried to allocate"),
        ("oom_total_mib", F64, "total capacity"),
        ("oom_free_mib", F64, "free"),
        ("oom_in_use_mib", F64, "memory in use by this process"),
        ("exit_code", I64, "exit code (negative = signal)"),
        ("attempts_left", I64, "Worker group FAILED. k/N attempts left: k"),
        ("attempts_max", I64, "... N"),
        ("step", I64, "training step/iteration number; training_step rows are thinned per (log body, rank, subkind): the first line of every 10-s interval, the first and last line, and both lines around a step that goes back are kept (lines without a timestamp: all)"),
        ("xid", I64, "Xid code"),
        ("severity", STR, "E/W/I/F from glog prefixes, else null"),
        ("subkind", STR, "which wording/variant of the kind matched (docs/parsers-logs.md)"),
        ("pg_rank", I64, "rank within the process group or communicator named by the message ([PG .. Rank N], comm rank)"),
        ("reporter_rank", I64, "rank that logged a report naming other ranks (desync, mismatch, flight recorder, comm lines)"),
        ("error_type", STR, "python_exception: the exception class (RuntimeError, torch.OutOfMemoryError); cuda_error: CUDA error"),
        ("error_message", STR, "python_exception / cuda_error: the message (first 300 characters)"),
        ("raw_row", I64, "row of the log body in raw/logs.parquet (dmesg: raw/exec.parquet)"),
        ("numel_in", I64, "NCCL work NumelIn (elements in the input of the timed-out collective)"),
        ("numel_out", I64, "NCCL work NumelOut"),
        ("fingerprint", STR, "collective fingerprint of a mismatch report: OpType, TensorShape, TensorDtypes (sequence number in seq_num)"),
    ),
    _t(
        "events", "Kubernetes event", "raw/objects kind=Event (core/v1 and events.k8s.io/v1)",
        ("ts", TS, "lastTimestamp / eventTime / series.lastObservedTime"),
        ("namespace", STR, ""),
        ("object_kind", STR, "involvedObject/regarding kind"),
        ("object_name", STR, ""),
        ("object_uid", STR, ""),
        ("reason", STR, ""),
        ("type", STR, "Normal/Warning"),
        ("message", STR, "note/message"),
        ("count", I64, "count / series.count (1 when absent)"),
        ("first_ts", TS, "firstTimestamp / eventTime"),
        ("source_component", STR, "source.component / reportingController"),
        ("source_host", STR, "source.host / reportingInstance"),
        ("event_uid", STR, "metadata.uid"),
        ("api_version", STR, "v1 or events.k8s.io/v1"),
        ("object_namespace", STR, "namespace of the involved/regarding object"),
        ("action", STR, "action (events.k8s.io), e.g. Scheduling"),
        ("raw_row", I64, "row of the kept copy in raw/objects.parquet"),
    ),
    _t(
        "kueue_workloads", "Kueue Workload", "raw/objects kind=Workload",
        ("namespace", STR, ""),
        ("workload", STR, ""),
        ("queue_name", STR, "spec.queueName (LocalQueue)"),
        ("cluster_queue", STR, "status.admission.clusterQueue"),
        ("owner_kind", STR, "owner job kind"),
        ("owner_name", STR, "owner job name"),
        ("quota_reserved", BOOL, "QuotaReserved condition"),
        ("admitted", BOOL, "Admitted condition"),
        ("evicted", BOOL, "Evicted condition"),
        ("message", STR, "message of the most telling condition (QuotaReserved=False, Evicted, ...)"),
        ("uid", STR, ""),
        ("created_at", TS, ""),
        ("priority", I64, "spec.priority"),
        ("pods_ready", BOOL, "PodsReady condition"),
        ("preempted", BOOL, "Preempted condition"),
        ("requeued", BOOL, "Requeued condition"),
        ("finished", BOOL, "Finished condition"),
        ("quota_reserved_reason", STR, ""),
        ("evicted_reason", STR, ""),
        ("preempted_reason", STR, ""),
        ("admitted_at", TS, "lastTransitionTime of Admitted=True"),
        ("gpu_request", I64, "GPUs the workload asks for (sum over pod sets)"),
        ("requeue_count", I64, "status.requeueState.count"),
        ("conditions_json", STR, "status.conditions as JSON text"),
    ),
    _t(
        "kueue_cluster_queues", "ClusterQueue x flavor x resource", "raw/objects kind=ClusterQueue",
        ("cluster_queue", STR, ""),
        ("flavor", STR, "ResourceFlavor"),
        ("resource", STR, "resource name, e.g. nvidia.com/gpu"),
        ("nominal_quota", F64, "nominalQuota (quantity as a number)"),
        ("used", F64, "status.flavorsUsage total (else flavorsReservation)"),
        ("pending_workloads", I64, "status.pendingWorkloads"),
        ("borrowing_limit", F64, ""),
        ("lending_limit", F64, ""),
        ("borrowed", F64, ""),
        ("reserved", F64, "status.flavorsReservation total"),
        ("admitted_workloads", I64, ""),
        ("reserving_workloads", I64, ""),
        ("cohort", STR, ""),
        ("active", BOOL, "Active condition"),
        ("active_reason", STR, ""),
        ("active_message", STR, ""),
    ),
    _t(
        "kueue_local_queues", "LocalQueue", "raw/objects kind=LocalQueue",
        ("namespace", STR, ""),
        ("local_queue", STR, ""),
        ("cluster_queue", STR, "spec.clusterQueue"),
        ("pending_workloads", I64, ""),
        ("admitted_workloads", I64, ""),
        ("reserving_workloads", I64, ""),
        ("active", BOOL, ""),
    ),
    _t(
        "flight_recorder", "Flight Recorder entry per rank (one dump file per rank)", "raw/exec source=flight-recorder",
        ("namespace", STR, "pod the dump was read in"),
        ("pod", STR, ""),
        ("node", STR, ""),
        ("container", STR, ""),
        ("rank", I64, "global rank: the number ending the dump file name <prefix><rank>"),
        ("pg_name", STR, "process group name (process_group[0]; '0' is the default group)"),
        ("pg_desc", STR, "process group description (process_group[1], e.g. default_pg)"),
        ("pg_id", I64, "pg_id"),
        ("pg_ranks", pa.list_(I64), "global ranks of the group (pg_config), null when the dump has none"),
        ("pg_size", I64, "number of ranks of the group"),
        ("record_id", I64, "record_id (position in this rank's ring buffer)"),
        ("collective_seq_id", I64, "collective sequence number within the group (0 for p2p)"),
        ("p2p_seq_id", I64, "point-to-point sequence number within the group"),
        ("op_id", I64, "logical op id"),
        ("is_p2p", BOOL, ""),
        ("op", STR, "profiling_name, e.g. nccl:all_reduce"),
        ("input_sizes", STR, "input tensor shapes, JSON"),
        ("output_sizes", STR, "output tensor shapes, JSON"),
        ("input_dtypes", STR, "JSON"),
        ("output_dtypes", STR, "JSON"),
        ("state", STR, "scheduled, started or completed"),
        ("time_created", TS, "time_created_ns: when the work was enqueued"),
        ("time_started", TS, "time_discovered_started_ns"),
        ("time_completed", TS, "time_discovered_completed_ns"),
        ("duration_ms", F64, "kernel duration (TORCH_NCCL_ENABLE_TIMING)"),
        ("timeout_ms", I64, ""),
        ("retired", BOOL, "retired without completing = timed out"),
        ("frame", STR, "innermost Python frame of the entry's stack, 'name at file:line'"),
        ("dump_file", STR, "path of the dump file in the pod"),
        ("dump_format", STR, "pickle or json"),
        ("dump_version", STR, "dump format version (version key)"),
        ("captured_at", TS, "when the dump was read"),
    ),
    _t(
        "flight_recorder_dumps", "Flight Recorder dump file found by the capture", "raw/exec source=flight-recorder",
        ("namespace", STR, ""),
        ("pod", STR, ""),
        ("node", STR, ""),
        ("container", STR, ""),
        ("rank", I64, "rank from the file name"),
        ("dump_file", STR, "path in the pod"),
        ("prefix", STR, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE prefix the reader used"),
        ("bytes", I64, "file size"),
        ("status", STR, "parsed, refused (a pickle global, over the size limit), unreadable, skipped (not a regular file, over the capture limit), none (the reader ran in this pod and found no dump: dump_file and rank null)"),
        ("reason", STR, "why not parsed, one line"),
        ("dump_format", STR, "pickle or json"),
        ("dump_version", STR, ""),
        ("entries", I64, "entries read"),
        ("captured_at", TS, ""),
        ("raw_row", I64, "row in raw/exec.parquet"),
    ),
    _t(
        "nccl_ras", "statement of an NCCL RAS report (ncclras output, exec or pasted in a log)", "raw/exec source=ncclras; raw/logs",
        ("ts", TS, "when the report was taken (exec start; log capture time)"),
        ("namespace", STR, ""),
        ("pod", STR, "pod the report was read in"),
        ("pod_uid", STR, "for reports found in logs"),
        ("node", STR, ""),
        ("container", STR, ""),
        ("origin", STR, "exec-text, exec-json, exec (unavailable) or log"),
        ("report", I64, "report number within its output (0 = first)"),
        ("kind", STR, "job, comm_group, process_missing, rank_missing, mismatch_group, mismatch_rank, rank_counts, timeout, unavailable"),
        ("section", STR, "summary, errors or warnings"),
        ("status", STR, "communicator status (RUNNING, INIT, FINALIZE) or the block heading (DEAD, INCOMPLETE, MISMATCH, TIMEOUT)"),
        ("errors", STR, "Errors column of the communicator table (OK, INCOMPLETE, MISMATCH, ...)"),
        ("comm", STR, "communicator id #<group>-<n>"),
        ("comm_hash", STR, "communicator hash"),
        ("comm_group", I64, "group number of the communicator table"),
        ("comms", I64, "communicators in the group"),
        ("comm_ranks", I64, "ranks per communicator"),
        ("nodes", I64, "nodes (job) or nodes per communicator"),
        ("processes", I64, "processes (job) or ranks in the group"),
        ("gpus", I64, "GPUs of the job"),
        ("rank", I64, "communicator rank named (missing rank, mismatch member, JSON rank)"),
        ("host", STR, "node address RAS names (IP or host name)"),
        ("pid", I64, "process id"),
        ("gpu", I64, "GPU the process manages (CUDA/NVML device number)"),
        ("op_count", I64, "collective operations launched (mismatch group; JSON: sum over op types)"),
        ("group_ranks", I64, "size of the mismatch group the row belongs to"),
        ("group_value", STR, "what the mismatch group shares: 'operation N' or 'status S'"),
        ("nccl_version", STR, ""),
        ("detail", STR, "the line (or JSON) the row comes from"),
        ("captured_at", TS, ""),
        ("raw_row", I64, "row in raw/exec.parquet (origin exec*) or raw/logs.parquet (origin log)"),
    ),
    _t(
        "runtime_classes", "RuntimeClass (last listing)", "raw/objects kind=RuntimeClass",
        ("runtime_class", STR, "metadata.name (what pods name in spec.runtimeClassName)"),
        ("handler", STR, "the CRI handler (nvidia, nvidia-cdi, runc, ...): a runtime configured in containerd/CRI-O"),
        ("node_selector_json", STR, "scheduling.nodeSelector as JSON text"),
        ("captured_at", TS, "time of the listing"),
    ),
    _t(
        "pod_runtime", "pod incarnation (uid, last listing)", "raw/objects kind=Pod",
        ("namespace", STR, ""),
        ("pod", STR, ""),
        ("pod_uid", STR, "metadata.uid"),
        ("runtime_class", STR, "spec.runtimeClassName"),
        ("shm_volume", STR, "volume mounted at /dev/shm in an app container (null: none, the runtime's 64 MiB default)"),
        ("shm_volume_kind", STR, "its source: emptyDir, hostPath, ..."),
        ("shm_medium", STR, "emptyDir medium ('Memory', or '' for node disk)"),
        ("shm_size_limit_bytes", I64, "emptyDir sizeLimit (bytes)"),
        ("images", pa.list_(STR), "app container images"),
        ("gpu_resources", pa.list_(STR), "GPU resource names the containers request (nvidia.com/gpu, nvidia.com/mig-1g.10gb, ...)"),
        ("spec_known", BOOL, "false for a pod `k10s import-logs` made up from logs (annotation k10s.io/imported): its spec is not the real pod's"),
    ),
    _t(
        "collector_runs", "collector (from the manifest)", "manifest.json collectors",
        ("collector", STR, ""),
        ("status", STR, "ok, partial, failed, skipped"),
        ("rows", I64, ""),
        ("errors", pa.list_(STR), ""),
        ("started_at", TS, ""),
        ("finished_at", TS, ""),
    ),
    _t(
        "parse_errors", "raw source x reason", "every parser",
        ("source", STR, "raw source (objects:Pod, exec:nvidia-smi-xml, scrapes:dcgm-exporter, logs, ...)"),
        ("reason", STR, "why it could not be parsed"),
        ("count", I64, "how many raw rows/lines failed this way"),
        ("examples", pa.list_(STR), "first examples (truncated)"),
        ("raw_file", STR, "raw/<name>.parquet"),
        ("first_raw_row", I64, "row index in raw_file of the first failure"),
    ),
)

TABLES_BY_NAME: dict[str, TableDef] = {t.name: t for t in TABLES}
TABLE_NAMES: tuple[str, ...] = tuple(TABLES_BY_NAME)


def table_def(name: str) -> TableDef:
    return TABLES_BY_NAME[name]


def conform(name: str, table: pa.Table) -> pa.Table:
    """Cast/extend ``table`` to the declared schema of ``name`` (missing columns become null)."""
    schema = TABLES_BY_NAME[name].schema
    n = table.num_rows
    arrays = []
    for field in schema:
        if field.name in table.column_names:
            col = table.column(field.name)
            if not col.type.equals(field.type):
                col = col.cast(field.type)
            arrays.append(col)
        else:
            arrays.append(pa.nulls(n, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def from_rows(name: str, rows: list[dict]) -> pa.Table:
    """Build a table of ``name`` from Python dicts (missing keys -> null)."""
    schema = TABLES_BY_NAME[name].schema
    return pa.Table.from_pylist(rows, schema=schema)



@functools.lru_cache(maxsize=None)
def empty_parquet(name: str, compression: str) -> bytes:
    """The Parquet file of derived table ``name`` with no rows, as ``pq.write_table`` writes it (a small
    bundle leaves most of its ~25 tables empty: writing each costs ~2 ms of CPU, these bytes nothing)."""
    sink = pa.BufferOutputStream()
    pq.write_table(TABLES_BY_NAME[name].empty(), sink, compression=compression)
    return sink.getvalue().to_pybytes()

__all__ = ["empty_parquet", "Column", "TableDef", "TABLES", "TABLES_BY_NAME", "TABLE_NAMES", "table_def", "conform", "from_rows"]
