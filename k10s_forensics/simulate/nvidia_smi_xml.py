"""``nvidia-smi -q -x`` documents (DTD v12 / v13 shape), one per node.

Power readings follow the driver: ``gpu_power_readings/power_draw`` before R570,
``average_power_draw``/``instant_power_draw`` from R570; clock reasons are
``clocks_event_reasons`` (R535+). Values carry units as nvidia-smi prints them.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from k10s_forensics.simulate.cluster import DRIVERS, Cluster, Node

REASONS = (
    ("gpu_idle", 0x1), ("applications_clocks_setting", 0x2), ("sw_power_cap", 0x4), ("hw_slowdown", 0x8),
    ("hw_thermal_slowdown", 0x40), ("hw_power_brake_slowdown", 0x80), ("sync_boost", 0x10),
    ("sw_thermal_slowdown", 0x20), ("display_clocks_setting", 0x100),
)

GPU_TEMPLATE = """\t<gpu id="{pci}">
\t\t<product_name>{product}</product_name>
\t\t<product_brand>NVIDIA</product_brand>
\t\t<product_architecture>{arch}</product_architecture>
\t\t<display_mode>Disabled</display_mode>
\t\t<display_active>Disabled</display_active>
\t\t<persistence_mode>Enabled</persistence_mode>
\t\t<mig_mode>
\t\t\t<current_mig>Disabled</current_mig>
\t\t\t<pending_mig>Disabled</pending_mig>
\t\t</mig_mode>
\t\t<mig_devices>
\t\t\tNone
\t\t</mig_devices>
\t\t<accounting_mode>Disabled</accounting_mode>
\t\t<serial>{serial}</serial>
\t\t<uuid>{uuid}</uuid>
\t\t<minor_number>{index}</minor_number>
\t\t<vbios_version>96.00.89.00.01</vbios_version>
\t\t<multigpu_board>No</multigpu_board>
\t\t<gpu_module_id>{module}</gpu_module_id>
\t\t<gpu_reset_status>
\t\t\t<reset_required>No</reset_required>
\t\t\t<drain_and_reset_recommended>No</drain_and_reset_recommended>
\t\t</gpu_reset_status>
\t\t<pci>
\t\t\t<pci_bus>{bus}</pci_bus>
\t\t\t<pci_device>00</pci_device>
\t\t\t<pci_domain>0000</pci_domain>
\t\t\t<pci_bus_id>{pci}</pci_bus_id>
\t\t\t<replay_counter>{replay}</replay_counter>
\t\t\t<replay_rollover_counter>0</replay_rollover_counter>
\t\t\t<tx_util>{tx} KB/s</tx_util>
\t\t\t<rx_util>{rx} KB/s</rx_util>
\t\t</pci>
\t\t<fan_speed>N/A</fan_speed>
\t\t<performance_state>{pstate}</performance_state>
\t\t<clocks_event_reasons>
{reasons}
\t\t</clocks_event_reasons>
\t\t<fb_memory_usage>
\t\t\t<total>{fb_total} MiB</total>
\t\t\t<reserved>{fb_reserved} MiB</reserved>
\t\t\t<used>{fb_used} MiB</used>
\t\t\t<free>{fb_free} MiB</free>
\t\t</fb_memory_usage>
\t\t<compute_mode>Default</compute_mode>
\t\t<utilization>
\t\t\t<gpu_util>{util} %</gpu_util>
\t\t\t<memory_util>{copy} %</memory_util>
\t\t\t<encoder_util>0 %</encoder_util>
\t\t\t<decoder_util>0 %</decoder_util>
\t\t</utilization>
\t\t<ecc_mode>
\t\t\t<current_ecc>Enabled</current_ecc>
\t\t\t<pending_ecc>Enabled</pending_ecc>
\t\t</ecc_mode>
\t\t<ecc_errors>
\t\t\t<volatile>
\t\t\t\t<sram_correctable>0</sram_correctable>
\t\t\t\t<sram_uncorrectable>0</sram_uncorrectable>
\t\t\t\t<dram_correctable>{sbe}</dram_correctable>
\t\t\t\t<dram_uncorrectable>0</dram_uncorrectable>
\t\t\t</volatile>
\t\t\t<aggregate>
\t\t\t\t<sram_correctable>0</sram_correctable>
\t\t\t\t<sram_uncorrectable>0</sram_uncorrectable>
\t\t\t\t<dram_correctable>{sbe}</dram_correctable>
\t\t\t\t<dram_uncorrectable>0</dram_uncorrectable>
\t\t\t</aggregate>
\t\t</ecc_errors>
\t\t<remapped_rows>
\t\t\t<remapped_row_corr>0</remapped_row_corr>
\t\t\t<remapped_row_unc>0</remapped_row_unc>
\t\t\t<remapped_row_pending>No</remapped_row_pending>
\t\t\t<remapped_row_failure>No</remapped_row_failure>
\t\t</remapped_rows>
\t\t<temperature>
\t\t\t<gpu_temp>{temp} C</gpu_temp>
\t\t\t<gpu_temp_max_threshold>92 C</gpu_temp_max_threshold>
\t\t\t<gpu_temp_slow_threshold>89 C</gpu_temp_slow_threshold>
\t\t\t<gpu_temp_max_gpu_threshold>87 C</gpu_temp_max_gpu_threshold>
\t\t\t<gpu_target_temperature>N/A</gpu_target_temperature>
\t\t\t<memory_temp>{mem_temp} C</memory_temp>
\t\t\t<gpu_temp_max_mem_threshold>95 C</gpu_temp_max_mem_threshold>
\t\t</temperature>
\t\t<gpu_power_readings>
\t\t\t<power_state>{pstate}</power_state>
{power}
\t\t\t<current_power_limit>{limit:.2f} W</current_power_limit>
\t\t\t<requested_power_limit>{limit:.2f} W</requested_power_limit>
\t\t\t<default_power_limit>{limit:.2f} W</default_power_limit>
\t\t\t<min_power_limit>200.00 W</min_power_limit>
\t\t\t<max_power_limit>{limit:.2f} W</max_power_limit>
\t\t</gpu_power_readings>
\t\t<clocks>
\t\t\t<graphics_clock>{sm_clock} MHz</graphics_clock>
\t\t\t<sm_clock>{sm_clock} MHz</sm_clock>
\t\t\t<mem_clock>{mem_clock} MHz</mem_clock>
\t\t\t<video_clock>1410 MHz</video_clock>
\t\t</clocks>
\t\t<max_clocks>
\t\t\t<graphics_clock>{max_sm} MHz</graphics_clock>
\t\t\t<sm_clock>{max_sm} MHz</sm_clock>
\t\t\t<mem_clock>{max_mem} MHz</mem_clock>
\t\t\t<video_clock>1980 MHz</video_clock>
\t\t</max_clocks>
\t\t<processes>
{processes}\t\t</processes>
\t</gpu>
"""

PROCESS = """\t\t\t<process_info>
\t\t\t\t<gpu_instance_id>N/A</gpu_instance_id>
\t\t\t\t<compute_instance_id>N/A</compute_instance_id>
\t\t\t\t<pid>{pid}</pid>
\t\t\t\t<type>C</type>
\t\t\t\t<process_name>/usr/bin/python3</process_name>
\t\t\t\t<used_memory>{mem} MiB</used_memory>
\t\t\t</process_info>
"""


def _asctime(ts: dt.datetime) -> str:
    return ts.strftime("%a %b ") + f"{ts.day:2d}" + ts.strftime(" %H:%M:%S %Y")


def render_node(cluster: Cluster, node: Node, frame: dict[str, np.ndarray], ts: dt.datetime) -> str:
    """The XML document ``nvidia-smi -q -x`` prints on ``node`` (GPUs that fell off the bus are absent)."""
    m = cluster.model
    driver = node.driver or cluster.driver
    cuda, dtd, power_style = DRIVERS[driver]
    gpus = [g for g in node.gpus if frame["present"][g.gid]]
    head = (
        '<?xml version="1.0" ?>\n'
        f'<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_{dtd}.dtd">\n'
        "<nvidia_smi_log>\n"
        f"\t<timestamp>{_asctime(ts)}</timestamp>\n"
        f"\t<driver_version>{driver}</driver_version>\n"
        f"\t<cuda_version>{cuda}</cuda_version>\n"
        f"\t<attached_gpus>{len(gpus)}</attached_gpus>\n"
    )
    parts = [head]
    for g in gpus:
        i = g.gid
        bits = int(frame["throttle"][i])
        reasons = "\n".join(
            f"\t\t\t<clocks_event_reason_{name}>{'Active' if bits & bit else 'Not Active'}</clocks_event_reason_{name}>"
            for name, bit in REASONS
        )
        pw = float(frame["power"][i])
        if power_style == "power_draw":
            power = f"\t\t\t<power_draw>{pw:.2f} W</power_draw>"
        else:
            power = f"\t\t\t<average_power_draw>{pw * 0.99:.2f} W</average_power_draw>\n\t\t\t<instant_power_draw>{pw:.2f} W</instant_power_draw>"
        used = int(frame["fb_used"][i])
        procs = PROCESS.format(pid=40000 + i * 17 % 9000, mem=max(0, used - 500)) if used > 1000 else ""
        util = int(frame["util"][i])
        parts.append(
            GPU_TEMPLATE.format(
                pci=g.pci_bus_id, product=m["product"], arch=m["arch"], serial=g.serial, uuid=g.uuid, index=g.index,
                module=g.index + 1, bus=g.bus, replay=int(frame["replay"][i]), tx=util * 1731, rx=util * 1913,
                pstate="P0" if util > 0 or used > 1000 else "P0" if m["arch"] == "Hopper" else "P8",
                reasons=reasons, fb_total=m["memory_mib"], fb_reserved=m["reserved_mib"], fb_used=used,
                fb_free=int(frame["fb_free"][i]), util=util, copy=int(frame["copy"][i]), sbe=int(frame["ecc_sbe"][i]),
                temp=int(frame["temp"][i]), mem_temp=int(frame["mem_temp"][i]), power=power, limit=g.power_limit_w or m["power_limit_w"],
                sm_clock=int(frame["sm_clock"][i]), mem_clock=int(frame["mem_clock"][i]), max_sm=m["max_sm_mhz"],
                max_mem=m["max_mem_mhz"], processes=procs,
            )
        )
    parts.append("</nvidia_smi_log>\n")
    return "".join(parts)
