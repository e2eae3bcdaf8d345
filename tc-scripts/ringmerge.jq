# SPDX-License-Identifier: GPL-2.0
# ringmerge.jq - the ranks of a ring-collective run merged into one
# result, shared by tc-scripts/ringrun.sh (the testbed's ringcoll files)
# and sim/ringsim.sh (the simulator's ranks): jq -L tc-scripts,
# include "ringmerge".
#
# Input: an array of ringcoll results, one per rank.
# ring_run: the run's set-up, from the first rank.
# ring_merge(guard): per job and iteration the collective completion
#   time (first step start to last arrival at any rank), each step's span
#   across the ring, the step overlap over time (how many steps of the
#   job are in flight at once: the Symphony paper's Fig. 2a/4a metric),
#   its maximum and the final step's span; per job, "whole": the same
#   over all iterations back to back (first start to last arrival, every
#   iteration's steps counted in one timeline, as the paper's Fig. 4a
#   runs collectives one after another); the ranks' counters summed;
#   "guard" is the filter guard run on the input (null where there is
#   none).

def ring_run:
  .[0] | {collective, proto, size_bytes, channels, step_qps, step_flows, flows, iterations,
	  steps, mtu_bytes, rate_bps, congestion_control};

def ring_merge(guard):
  def ms: . / 1000000;
  # steps [{start_ns, end_ns}] -> [[ms since $t0, steps in flight]]
  def overlap_timeline($t0):
    [.[] | [.start_ns, 1], [.end_ns, -1]]
    | sort_by(.[0], .[1])
    | reduce .[] as $e ({n: 0, tl: []};
	.n += $e[1] | .tl += [[(($e[0] - $t0) | ms), .n]])
    | .tl;
  . as $ranks
  | ring_run as $run
  | [$ranks[].jobs[].job] | unique as $ids
  | {
      run: $run,
      ranks: ($ranks | length),
      counters: (reduce ($ranks[].counters) as $c ({};
		 reduce ($c | keys[]) as $k (.; .[$k] += $c[$k]))),
      guard: ($ranks | guard),
      jobs: [ $ids[] as $id
	| [$ranks[] | .jobs[] | select(.job == $id)] as $rs
	| {
	    job: $id,
	    ranks: ($rs[0].ranks),
	    step_bytes: ($rs[0].step_bytes),
	    # a job's own iterations and steps: jobs may differ in both
	    iterations: [ range($rs[0].iterations | length) as $it
	      | [$rs[] | .iterations[$it]] as $ri
	      | ([$ri[] | .steps[] | select(.start_ns > 0) | .start_ns] | min // 0) as $t0
	      | ([$ri[] | .end_ns] | max) as $t1
	      | [range($ri[0].steps | map(.step) | max + 1) as $k
		  | [$ri[] | .steps[] | select(.step == $k)] as $s
		  | {step: $k,
		     start_ns: ([$s[].start_ns | select(. > 0)] | min // 0),
		     end_ns: ([$s[].end_ns] | max // 0)}] as $steps
	      | ($steps | overlap_timeline($t0)) as $timeline
	      | {
		  cct_ms: (($t1 - $t0) | ms),
		  start_ns: $t0, end_ns: $t1,
		  # ranks that started late (launched after --delay ran out)
		  start_skew_ms: (([$ri[].start_ns | select(. > 0)]
				   | (max // 0) - (min // 0)) | ms),
		  complete: ([$ri[] | .end_ns > 0] | all),
		  max_step_overlap: ([$timeline[][1]] | max),
		  final_step_span_ms: (($steps[-1].end_ns - $steps[-1].start_ns) | ms),
		  steps: $steps,
		  step_overlap: $timeline
		}
	    ]
	  }
	| . + {cct_ms: ([.iterations[].cct_ms] | sort
		| {median: .[(length / 2 | floor)], min: min, max: max})}
	| .iterations[0].start_ns as $t0
	| ([.iterations[].steps[]] | overlap_timeline($t0)) as $timeline
	| . + {whole: {
	    cct_ms: ((.iterations[-1].end_ns - $t0) | ms),
	    complete: ([.iterations[].complete] | all),
	    max_step_overlap: ([$timeline[][1]] | max),
	    final_step_span_ms: .iterations[-1].final_step_span_ms,
	    step_overlap: $timeline}}
      ]
    };
