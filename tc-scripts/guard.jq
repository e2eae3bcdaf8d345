# SPDX-License-Identifier: GPL-2.0
# guard.jq - a testbed run's guard, shared by permrun.sh and ringrun.sh
# (jq -L tc-scripts, include "guard"): did the machine keep up, so that
# the run measured the network rather than the CPUs?
#
# run_guard(load; classes; lag_frames; mtu_bytes; rate_bps; pacing;
#           receive_wait_max_ns; delay_clocks):
#   load       build/hostload's object (busy, softirq and steal shares,
#              timer interrupts per second, whole run and busiest window;
#              the worst wake-up of a 1 ms sleeper)
#   classes    the links' HTB classes (guard_start in lib.sh)
#   lag_frames the limit: a sender further behind its schedule than this
#              many frame times makes the run untrustworthy
#   pacing     each sender's "pacing" object (worst_lag_ns,
#              max_burst_packets, schedule_slips, schedule_slip_ns,
#              refused_sends, and acks_unsent or control_unsent)
#   receive_wait_max_ns  the receivers' worst wait for a CPU (0: unknown)
#   delay_clocks  each sender's delay_clock ("kernel" or "recvmsg"; []
#              when the tool takes no one-way delays)
# The frame time counts 62 bytes of headers around each payload.
def run_guard($load; $classes; $lag_frames; $mtu_bytes; $rate_bps; $pacing;
	      $receive_wait_max_ns; $delay_clocks):
  ((($mtu_bytes + 62) * 8 * 1e9 / $rate_bps)) as $frame_ns
  | ([$pacing[].worst_lag_ns // 0] | max // 0) as $lag
  | ($load // {}) + {
      frame_ns: ($frame_ns | round),
      lag_limit_frames: $lag_frames,
      worst_sender_lag_ns: $lag,
      worst_sender_lag_frames: ($lag / $frame_ns * 100 | round / 100),
      max_burst_packets: ([$pacing[].max_burst_packets // 0] | max // 0),
      schedule_slips: ([$pacing[].schedule_slips // 0] | add // 0),
      schedule_slip_max_ns: ([$pacing[].schedule_slip_ns // 0] | max // 0),
      refused_sends: ([$pacing[].refused_sends // 0] | add // 0),
      unsent_control: ([$pacing[] | (.acks_unsent // .control_unsent // 0)] | add // 0),
      receive_wait_max_ns: $receive_wait_max_ns,
      delay_clock: (if ($delay_clocks | length) == 0 then null
		    elif all($delay_clocks[]; . == "kernel") then "kernel"
		    else "recvmsg" end),
      link_classes: $classes
    }
  | .reasons = [
      (select(.worst_sender_lag_frames > $lag_frames)
       | "a sender lagged \(.worst_sender_lag_frames) frame times behind its schedule (limit \($lag_frames))"
	 + (if (.wakeup_late_max_ns // 0) > $lag_frames * $frame_ns
	    then ", and the machine itself stalled: a 1 ms sleep woke \(.wakeup_late_max_ns / 1e4 | round / 100) ms late (steal \(.steal_pct)%)"
	    else "" end)),
      (select(.delay_clock == "recvmsg")
       | "some delays were stamped at recvmsg(), not by the kernel"),
      (select(.unsent_control > 0)
       | "\(.unsent_control) ACKs or CNPs could not be sent")
    ]
  | .verdict = (if (.reasons | length) == 0 then "trustworthy" else "untrustworthy" end);

# One line for a person: the verdict and the figures behind it.
def guard_line:
  "guard: \(.verdict): worst sender lag \(.worst_sender_lag_frames) frames, longest burst \(.max_burst_packets) packets, \(.schedule_slips) schedule slips; CPU busy \(.cpu_busy_pct // "?")% (busiest \(.window_ms // "?") ms: \(.cpu_busy_max_window_pct // "?")%), \(.timer_irqs_per_s // "?") timer interrupts/s\(if .reasons == [] then "" else "; " + (.reasons | join("; ")) end)";
