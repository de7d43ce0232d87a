#!/bin/bash
# One device call of the paper-scale Sec. 7.3 sweep (issue 25; the runbook is docs/engine.md, "What the next GPU
# session should run", item 3). Run on the device machine from the repository root, as the whole command of a call
# with carry [".gpucarry"]:  END=590 bash docs/device-sec73.sh
#   SOURCE  minilm (default) or gaussian (the control, d_model 768; it needs no carried copy)
#   ENGINE  v1 (default: today's block, one cell of 7 seeds a batch) or v3 (issue 38: the keyless block, mixed
#           batches; its records have their own keys and plan, sec73v3:full:SOURCE:cuda:20250926)
#   END     seconds this call may take in all (the call's timeout less about 10 s)
#   EXPECT  a second call on the same warm machine: the records the first call printed; it stops at once (exit 3)
#           if the store did not stay
#   STEP_MS ENGINE=v3 only: plan with this step time (ms, a full batch of 56 runs) instead of measuring it
#   PROBE   ENGINE=v3 without STEP_MS: 1 (default) measures the v3 step at 56 and 28 runs before planning (a compile
#           each, about a minute); 0 plans at the model's predicted step time and leaves the measuring to the sweep
#           (a batch whose steps between its first two evaluations after its compile say it would end after the
#           deadline is dropped there and retried at half the size; its progress lines print the measured ms a step)
#   PROBE_V3 1 with ENGINE=v1: after the gpu tests, also run v3's gpu tests and measure its step ($OUT/plan-v3.txt,
#           about 90 s), then train with v1 (the next session's call, docs/engine.md)
#   COMPILE 1 (default) or 0: the v3 loss through torch.compile (RGR_VERIFY_COMPILE; a failure falls back to eager
#           with a warning in the log); with it the probe measures 56 and 28 runs only (a compile per batch size)
# Before the first call, here: rgr-verify sec73-carry --out .gpucarry/site.tgz  (the MiniLM copy, about 10 MB; the
# device reaches no package registry). A first call (no EXPECT) runs the gpu tests first (v1's about 30 s; v3's
# compile the loss about once, perhaps 40-80 s), then it
# trains the next (D_K, h) cells of 7 seeds in the preset's order (its first_cells, then by h; about 205 s a cell
# with the graphed step; no cell starts that the last one's duration says cannot finish), and returns the store in
# $OUT/r73.tgz (unpacks as R73/). With ENGINE=v3 the gpu tests are the v3 trainer's and compiler's (and today's),
# then the v3 step is measured at 56 and 28 runs (PROBE=1; rgr-verify sec73 --plan-only --probe-steps), the plan
# of the missing runs at the measured times (PROBE=0: at the predicted times) is printed ($OUT/plan.txt) and the
# sweep trains with --engine v3 at the batch size the plan recommends (the runbook's first call: ENGINE=v3 PROBE=0
# END=590). Then here, once:
#   mkdir -p /tmp/r73x && tar xzf <files_at>/r73.tgz -C /tmp/r73x && rgr-verify evidence add /tmp/r73x/R73 ...
# The store folder R73-$SOURCE (R73-v3-$SOURCE) is git-ignored, so it stays on a warm machine between two calls.
# Exit status: that of the sweep (0 also when it stopped at its deadline), else 2 for a bad setting, 3 for a store
# that did not stay.
set -o pipefail; export PYTHONUNBUFFERED=1; T0=$SECONDS; END=${END:-580}; SOURCE=${SOURCE:-minilm}; ENGINE=${ENGINE:-v1}
OUT=${OUT:?run on the device machine, where OUT names the folder that comes back}
case $SOURCE in minilm|gaussian) ;; *) echo "SOURCE must be minilm or gaussian, got $SOURCE"; exit 2;; esac
case $ENGINE in v1|v3) ;; *) echo "ENGINE must be v1 or v3, got $ENGINE"; exit 2;; esac
case ${PROBE_V3:-0} in 0|1) ;; *) echo "PROBE_V3 must be 0 or 1, got $PROBE_V3"; exit 2;; esac
case ${COMPILE:-1} in 0|1) export RGR_VERIFY_COMPILE=${COMPILE:-1};; *) echo "COMPILE must be 0 or 1, got $COMPILE"; exit 2;; esac
case ${PROBE:-1} in 0|1) ;; *) echo "PROBE must be 0 or 1, got $PROBE"; exit 2;; esac
case $STEP_MS in *[!0-9.]*|.|*.*.*) echo "STEP_MS must be a step time in ms (e.g. 4.5), got $STEP_MS"; exit 2;; esac
case $END in ''|*[!0-9]*) echo "END must be a whole number of seconds, got $END"; exit 2;; esac
case $EXPECT in *[!0-9]*) echo "EXPECT must be the number of records the first call printed, got $EXPECT"; exit 2;; esac
if [ "$SOURCE" = minilm ]; then
  [ -f .gpucarry/site.tgz ] || { echo "no .gpucarry/site.tgz: run here mkdir -p .gpucarry && rgr-verify sec73-carry --out .gpucarry/site.tgz, and carry .gpucarry"; exit 2; }
  rm -rf /tmp/stub && mkdir -p /tmp/stub && tar xzf .gpucarry/site.tgz -C /tmp/stub || { echo "cannot unpack .gpucarry/site.tgz"; exit 2; }
  export PYTHONPATH=/tmp/stub/site
fi
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . > "$OUT/install.log" 2>&1 || { echo INSTALL FAILED; tail "$OUT/install.log"; exit 1; }
python3 - <<'EOF' 2>&1 | tee "$OUT/machine.txt"
import torch
from rgr_verify.runs.sec73_sweep import code_version
print("torch", torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA",
      "code", code_version())
EOF
if [ "$SOURCE" = minilm ]; then  # the copy must give the table every committed MiniLM run was trained on
  DIGEST=$(python3 -c "from rgr_verify.models.embedding_sources import MiniLMSource; from rgr_verify.runs.sec73_carry import FULL_M, table_digest; print('DIGEST', table_digest(MiniLMSource().table(FULL_M).E))" | sed -n 's/^DIGEST //p')
  [ -n "$DIGEST" ] || { echo "the MiniLM table could not be built from the carried copy"; exit 1; }
  echo "MiniLM table sha256 prefix $DIGEST" | tee -a "$OUT/machine.txt"
  [ "$DIGEST" = d53022189e5a1328 ] || { echo "the MiniLM table differs from the committed runs' (d53022189e5a1328)"; exit 1; }
fi
# Seeded from the committed cells when they are more (a fresh machine); they are replayed, and returned with the new ones.
# v3 keeps its own store and evidence (sec73v3-*): v1 records are not runs of its plan.
if [ "$ENGINE" = v3 ]; then R73=R73-v3-$SOURCE; EV=rgr_verify/data/evidence/sec73v3-$SOURCE-full.jsonl.gz
else R73=R73-$SOURCE; EV=rgr_verify/data/evidence/sec73-$SOURCE-full.jsonl.gz; fi
mkdir -p $R73
if [ -f $EV ] && [ $(zcat $EV | wc -l) -gt $(cat $R73/sec73-runs.jsonl 2>/dev/null | wc -l) ]; then zcat $EV > $R73/sec73-runs.jsonl; fi
echo "== store $R73: $(cat $R73/sec73-runs.jsonl 2>/dev/null | wc -l) records before training"
if [ -n "$EXPECT" ] && [ $(cat $R73/sec73-runs.jsonl 2>/dev/null | wc -l) -lt $EXPECT ]; then
  echo "== the store lacks the last call's records ($EXPECT expected): run evidence add here first"; exit 3; fi
# First call of a machine: the gpu tests first (about 30 s: the graphed step against the eager loop bit for bit and
# the rest of test_transformer/test_engine/test_bench/test_fused_adamw), so that a broken device shows before training.
if [ -z "$EXPECT" ]; then
  if [ "$ENGINE" = v3 ]; then TESTS="empirical/test_sec73_v3_trainer.py empirical/test_sec73_v3_compile.py"  # v1's passed on the H200
  else TESTS="empirical/test_bench.py empirical/test_engine.py empirical/test_fused_adamw.py empirical/test_transformer.py"; fi
  timeout $([ "$ENGINE" = v3 ] && echo 240 || echo 150) python3 -m pytest --tier gpu -n 0 -m gpu -q -p no:cacheprovider $TESTS > "$OUT/gputest.log" 2>&1
  echo "== gpu tests rc=$? ($((SECONDS-T0)) s)"; tail -n 3 "$OUT/gputest.log"
  if [ "$ENGINE" = v1 ] && [ "$PROBE_V3" = 1 ]; then  # v3's gpu tests and measured step times, then v1 trains (about 90 s)
    timeout 150 python3 -m pytest --tier gpu -n 0 -m gpu -q -p no:cacheprovider empirical/test_sec73_v3_trainer.py empirical/test_sec73_v3_compile.py > "$OUT/gputest-v3.log" 2>&1
    echo "== v3 gpu tests rc=$? ($((SECONDS-T0)) s)"; tail -n 3 "$OUT/gputest-v3.log"
    timeout 100 python3 -m rgr_verify.cli sec73 --tier full --engine v3 --source $SOURCE --device cuda --results /tmp/r73-v3-probe --plan-only --probe-steps 100 > "$OUT/plan-v3.txt" 2>&1
    echo "== v3 probe rc=$? ($((SECONDS-T0)) s)"; grep -i "ms\|recommended\|calls" "$OUT/plan-v3.txt" | tail -n 8
  fi
fi
BATCH=""
if [ "$ENGINE" = v3 ] && [ -n "$EXPECT" ] && [ -s $R73/batch.txt ]; then  # a second call: the first call's batch size
  BATCH=$(cat $R73/batch.txt); echo "== batch size of the first call: $BATCH runs"
elif [ "$ENGINE" = v3 ]; then  # the plan of the missing runs, at measured step times (or STEP_MS), and its batch size
  # this call's training time: the sweep's --stop-after (the time left less 20 s) less its start (15 s), and less
  # the probe's minute when there is one; later calls are planned at the package's 520 s (no tests: EXPECT)
  LEFT=$((END - (SECONDS-T0))); PLAN="python3 -m rgr_verify.cli sec73 --tier full --engine v3 --source $SOURCE --device cuda --results $R73 --plan-only --first-call-seconds"
  T1=$((LEFT-35)); T2=$((LEFT-95)); [ $T1 -ge 1 ] || T1=1; [ $T2 -ge 1 ] || T2=1  # a call out of time plans nothing in it
  if [ -n "$STEP_MS" ]; then $PLAN $T1 --step-ms $STEP_MS > "$OUT/plan.txt" 2>&1
  elif [ "${PROBE:-1}" = 0 ]; then $PLAN $T1 > "$OUT/plan.txt" 2>&1
  else timeout 120 $PLAN $T2 --probe-steps 100 > "$OUT/plan.txt" 2>&1 || { echo "== the probe failed: the plan at the model's step times"; $PLAN $T2 >> "$OUT/plan.txt" 2>&1; }; fi
  cat "$OUT/plan.txt"; BATCH=$(sed -n 's/^recommended: --max-batch-runs \([0-9]*\)$/\1/p' "$OUT/plan.txt" | tail -n 1)
  [ -n "$BATCH" ] && echo $BATCH > $R73/batch.txt
fi
LEFT=$((END - (SECONDS-T0)))
SWEEP="rgr-verify sec73 --tier full --engine $ENGINE --source $SOURCE --device cuda ${BATCH:+--max-batch-runs $BATCH}"
echo "== sec73 full $SOURCE, engine $ENGINE${BATCH:+, $BATCH runs a batch}, stop-after $((LEFT-20)) s ($((SECONDS-T0)) s)"
timeout $((LEFT-5)) $SWEEP --results $R73 --stop-after $((LEFT-20)) > "$OUT/sec73.log" 2>&1; RC=$?; echo "rc=$RC" >> "$OUT/sec73.log"
if grep -q "CUDA graph capture of the Sec. 7.3 step failed" "$OUT/sec73.log"; then  # the eager loop: the same runs, 2.7x slower
  LEFT=$((END - (SECONDS-T0))); echo "== graph capture failed: eager, stop-after $((LEFT-20)) s"
  RGR_VERIFY_CUDA_GRAPHS=0 timeout $((LEFT-5)) $SWEEP --results $R73 --stop-after $((LEFT-20)) >> "$OUT/sec73.log" 2>&1; RC=$?; echo "rc=$RC" >> "$OUT/sec73.log"
fi
grep -v "step=" "$OUT/sec73.log" | tail -n 8; grep "step=" "$OUT/sec73.log" | awk 'NR%10==0' | tail -n 12
echo "== store $R73: $(cat $R73/sec73-runs.jsonl | wc -l) records after training (EXPECT for a second call)"
rm -rf R73 && cp -r $R73 R73 && tar czf "$OUT/r73.tgz" R73 || { echo "the store could not be packed"; exit 1; }  # unpacks as R73/
echo "== done ($((SECONDS-T0)) s, sweep rc=$RC)"; exit $RC
