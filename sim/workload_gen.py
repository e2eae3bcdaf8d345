#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""workload_gen.py - writes training workloads for symofan-sim's workload
command (format symofan-workload, version 1; docs/workloads.md).

Models, each layer's parameters and FLOPs computed from the published
architecture (not read from any trace):
  dp           a data-parallel job of hand-given layers (--layers)
  resnet50     ResNet-50 (torchvision's v1.5, 224x224), data parallel
  vgg16        VGG16 (configuration D, 224x224), data parallel
  transformer  the original Transformer (big: d 1024, 16 heads, FFN
               4096, 6+6 layers), tensor (model) parallel inside groups
               of --mp ranks and data parallel across them
  astra1       an Astra-Sim 1.0 text workload (--file: DATA, MODEL and the
               HYBRID_* kinds, the format the Symphony paper's Table 2 ran),
               its compute cycles at --cycle-ns each (see astra1())
  chakra       a Chakra execution trace (--file: one rank's, MLCommons'
               et_def schema, the format Astra-Sim 2.0 reads), every rank
               running it (see chakra())
  moe          an MoE layer's token dispatch as a traffic matrix (format
               symofan-matrix, for symofan-sim perm --pattern matrix):
               the Ofan paper's Fig. 13 (see moe_matrix())

Compute: a layer's forward pass takes its FLOPs x the per-rank batch over
--tflops (the accelerator's sustained rate), the backward pass twice the
forward (input and weight gradients), so an iteration computes 3x the
forward FLOPs, the usual estimate.  --compute-scale divides every compute
time (the Symphony paper's Fig. 6: faster accelerators).  --scale divides
compute and bytes alike, a smaller job of the same compute-to-network
ratio for a cheaper simulation.

--images-per-s sets resnet50's and vgg16's rate from a measured training
throughput instead: the rate at which one accelerator computes that many
samples a second (3x the forward FLOPs each), e.g. 1200 for ResNet-50
v1.5 on one V100 16GB in mixed precision (NVIDIA DeepLearningExamples,
PyTorch/Classification/ConvNets/resnet50v1.5, DGX-1 training
performance); the rate it implies is in the workload's source line, to
be carried to another model by --tflops.

Data parallel (Astra-Sim's DATA workloads): forward over the layers, then
the backward pass from the last layer to the first; each layer's
gradient AllReduce (or each bucket's, --bucket-mb as PyTorch DDP) starts
when its backward compute ends and overlaps the next layers' backward
compute; the next iteration starts when every AllReduce has ended.
--dims RxC runs each AllReduce on a 2D ring of rows of R ranks (R
consecutive ranks) and columns of C, hierarchically: a reduce-scatter
along the rows, an AllReduce of the row's share (1/R) along the
columns, an all-gather along the rows (the Symphony paper's Table 1: 8
x 4 at 32 nodes, 32 x 4 at 128).  The columns carry a job ID of their
own on the wire (the job's + 1): each group numbers its steps on, so one
ID for both would set a row's steps against a column's.
"""
import argparse
import heapq
import json
import sys

PROG = "workload_gen.py"


def die(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def conv(name, cin, cout, k, hw_out, bn=True, bias=False):
    """A k x k convolution (with its batch norm folded into the layer):
    parameters, and FLOPs of one sample's forward pass (2 per MAC)."""
    params = k * k * cin * cout + (2 * cout if bn else 0) + (cout if bias else 0)
    flops = 2 * k * k * cin * cout * hw_out * hw_out
    return {"name": name, "params": params, "flops": flops}


def fc(name, fin, fout):
    return {"name": name, "params": fin * fout + fout, "flops": 2 * fin * fout}


def resnet50():
    """torchvision resnet50 (v1.5: the stride on the 3x3 conv):
    25,557,032 parameters, 4.09 GMACs a 224x224 sample."""
    layers = [conv("conv1", 3, 64, 7, 112)]
    cin, hw = 64, 56
    for stage, (width, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)]):
        for b in range(blocks):
            stride = 2 if (b == 0 and stage > 0) else 1
            hw_out = hw // stride
            pre = f"layer{stage + 1}.{b}"
            layers.append(conv(pre + ".conv1", cin, width, 1, hw))
            layers.append(conv(pre + ".conv2", width, width, 3, hw_out))
            layers.append(conv(pre + ".conv3", width, width * 4, 1, hw_out))
            if b == 0:
                layers.append(conv(pre + ".downsample", cin, width * 4, 1, hw_out))
            cin, hw = width * 4, hw_out
    layers.append(fc("fc", 2048, 1000))
    return layers


def vgg16():
    """VGG16 (configuration D), no batch norm: 138,357,544 parameters,
    15.5 GMACs a 224x224 sample."""
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
           512, 512, 512, "M"]
    layers, cin, hw, n = [], 3, 224, 0
    for c in cfg:
        if c == "M":
            hw //= 2
            continue
        n += 1
        layers.append(conv(f"conv{n}", cin, c, 3, hw, bn=False, bias=True))
        cin = c
    layers.append(fc("fc6", 512 * 7 * 7, 4096))
    layers.append(fc("fc7", 4096, 4096))
    layers.append(fc("fc8", 4096, 1000))
    return layers


def parse_layers(text):
    """--layers "FWD_US:BWD_US:GRAD_BYTES,...": hand-given layers."""
    layers = []
    for i, item in enumerate(text.split(",")):
        parts = item.split(":")
        try:
            fwd, bwd, grad = float(parts[0]), float(parts[1]), int(parts[2])
            if len(parts) != 3 or fwd < 0 or bwd < 0 or grad < 1:
                raise ValueError
        except (ValueError, IndexError):
            die(f"--layers '{item}': wants FWD_US:BWD_US:GRAD_BYTES (times >= 0, bytes >= 1)")
        layers.append({"name": f"l{i + 1}", "fwd_ns": int(fwd * 1000),
                       "bwd_ns": int(bwd * 1000), "grad_bytes": grad})
    return layers


def parse_dims(text, nodes):
    """--dims RxC: rows of R ranks, columns of C, R x C = nodes."""
    parts = text.lower().split("x")
    try:
        row, col = int(parts[0]), int(parts[1])
        if len(parts) != 2 or row < 2 or col < 2:
            raise ValueError
    except (ValueError, IndexError):
        die(f"--dims '{text}': wants RxC, rows and columns of 2 or more ranks")
    if row * col != nodes:
        die(f"--dims '{text}': {row} x {col} is not --nodes {nodes}")
    return row, col


def placement(args, nodes):
    """Rank r's host: --order host (rank r on host r: a ring's neighbours
    share a ToR but at its ends) or rail (ranks dealt round-robin over the
    ToRs, every ring hop crossing the spines: the placement under which
    ECMP collides, as the Symphony paper's rings do)."""
    if args.order == "host":
        return list(range(nodes))
    tors = nodes // args.hosts_per_tor
    if tors * args.hosts_per_tor != nodes:
        die(f"--order rail: --nodes {nodes} is not a multiple of --hosts-per-tor "
            f"{args.hosts_per_tor}")
    return [(r % tors) * args.hosts_per_tor + r // tors for r in range(nodes)]


def dp_groups(nodes, dims, job):
    """The data-parallel communicators: one ring of every rank, or with
    @dims (R, C) a 2D ring's rows (R consecutive ranks) and columns, the
    columns on job ID @job + 1 (each group numbers its steps on)."""
    if not dims:
        return [{"name": "dp", "rings": [list(range(nodes))]}]
    row, col = dims
    return [{"name": "rows", "rings": [list(range(j * row, (j + 1) * row)) for j in range(col)]},
            {"name": "cols", "rings": [list(range(i, nodes, row)) for i in range(row)],
             "wire_job": job + 1}]


def shard_rings(nodes, mp, wire_job, ring_ids):
    """A hybrid job's data-parallel group: a ring of each shard index's
    ranks across the model groups of @mp consecutive ranks, on job ID
    @wire_job, and with @ring_ids "per-ring" ring i on @wire_job + i (so
    that Symphony compares the steps of one ring only)."""
    return {"name": "dp", "rings": [list(range(s, nodes, mp)) for s in range(mp)],
            "wire_job": wire_job, "wire_job_per_ring": ring_ids == "per-ring"}


def allreduce_ops(name, nbytes, dep, dims, group="dp"):
    """A gradient AllReduce of @nbytes after @dep: one op on @group, or on
    a 2D ring (@dims) a reduce-scatter along the rows, an AllReduce of a
    row's 1/R share along the columns and an all-gather along the rows.
    Returns the ops and the name of the last."""
    if not dims:
        return [{"name": name, "kind": "allreduce", "group": group, "bytes": nbytes,
                 "deps": [dep]}], name
    rs, ar, ag = name + ".rows-rs", name + ".cols-ar", name + ".rows-ag"
    return [{"name": rs, "kind": "reducescatter", "group": "rows", "bytes": nbytes, "deps": [dep]},
            {"name": ar, "kind": "allreduce", "group": "cols",
             "bytes": max(1, round(nbytes / dims[0])), "deps": [rs]},
            {"name": ag, "kind": "allgather", "group": "rows", "bytes": nbytes,
             "deps": [ar]}], ag


def data_parallel(args, layers, bytes_per_param):
    """Forward, then backward from the last layer, gradient AllReduces
    per layer or per bucket overlapping the rest of the backward pass."""
    ops = []
    scale, cscale = args.scale, args.scale * args.compute_scale
    fwd_ns = sum(layer["fwd_ns"] for layer in layers)
    ops.append({"name": "forward", "kind": "compute", "ns": max(0, round(fwd_ns / cscale))})
    prev = "forward"
    bucket, bucket_layers, nb = 0, [], 0
    bucket_bytes = args.bucket_mb * 1024 * 1024

    def flush(dep):
        nonlocal bucket, bucket_layers, nb
        if not bucket_layers:
            return
        nb += 1
        name = ("allreduce." + bucket_layers[0] if args.bucket_mb == 0
                else f"allreduce.bucket{nb}")
        ops.extend(allreduce_ops(name, max(1, round(bucket / scale)), dep, args.dims)[0])
        bucket, bucket_layers = 0, []

    for layer in reversed(layers):
        name = "backward." + layer["name"]
        ops.append({"name": name, "kind": "compute",
                    "ns": max(0, round(layer["bwd_ns"] / cscale)), "deps": [prev]})
        prev = name
        bucket += layer["grad_bytes"] if "grad_bytes" in layer else layer["params"] * bytes_per_param
        bucket_layers.append(layer["name"])
        if args.bucket_mb == 0 or bucket >= bucket_bytes:
            flush(name)
    flush(prev)
    return ops


def with_times(layers, args):
    """Each layer's forward time from its FLOPs at --batch over --tflops
    (or the rate --images-per-s implies); the backward pass twice that."""
    if args.images_per_s:
        args.tflops = 3 * sum(layer["flops"] for layer in layers) * args.images_per_s / 1e12
    for layer in layers:
        f = layer["flops"] * args.batch / (args.tflops * 1e12) * 1e9
        layer["fwd_ns"], layer["bwd_ns"] = f, 2 * f
    return layers


def transformer(args, nodes):
    """The original Transformer, big (Vaswani et al.: d 1024, FFN 4096, 16
    heads, 6 encoder and 6 decoder layers), tensor parallel as Megatron
    splits a layer: inside a group of --mp ranks, each attention and FFN
    block ends with an AllReduce of the activations (tokens x d, FP16) in
    the forward pass and of their gradients in the backward pass; the
    weight gradients (the block's parameters over --mp, FP32) AllReduce
    across the data-parallel ranks of the same shard, overlapping the
    rest of the backward pass.  --mp-on scaleup (default) keeps the
    tensor-parallel AllReduces inside the server (NVLink at
    --scaleup-gbps, a ring's 2(mp-1)/mp of the bytes, on the compute
    stream, as they block it); fabric sends them over the network too."""
    d, ff = 1024, 4096
    mp = args.mp
    if nodes % mp:
        die(f"--mp {mp} does not divide --nodes {nodes}")
    if nodes // mp < 2 or mp < 2:
        die(f"--mp {mp}: wants 2 or more groups of 2 or more ranks on --nodes {nodes}")
    tokens = args.tokens
    act_bytes = tokens * d * 2  # FP16 activations
    blocks = []
    for i in range(6):
        blocks += [(f"enc{i + 1}.attn", 4 * d * d + 4 * d), (f"enc{i + 1}.ffn", 2 * d * ff + d + ff)]
    for i in range(6):
        blocks += [(f"dec{i + 1}.self", 4 * d * d + 4 * d), (f"dec{i + 1}.cross", 4 * d * d + 4 * d),
                   (f"dec{i + 1}.ffn", 2 * d * ff + d + ff)]
    scale, cscale = args.scale, args.scale * args.compute_scale
    ops, prev = [], None

    def mp_allreduce(name, dep):
        nbytes = max(1, round(act_bytes / scale))
        if args.mp_on == "fabric":
            ops.append({"name": name, "kind": "allreduce", "group": "mp", "bytes": nbytes,
                        "deps": [dep]})
        else:
            ns = 2 * (mp - 1) / mp * nbytes * 8 / args.scaleup_gbps
            ops.append({"name": name, "kind": "compute", "ns": round(ns), "deps": [dep]})

    for name, params in blocks:  # forward: compute, then the MP AllReduce
        fwd_ns = 2 * params * tokens / mp / (args.tflops * 1e12) * 1e9
        ops.append({"name": "fwd." + name, "kind": "compute",
                    "ns": max(0, round(fwd_ns / cscale)), **({"deps": [prev]} if prev else {})})
        mp_allreduce("fwd.mp." + name, "fwd." + name)
        prev = "fwd.mp." + name
    for name, params in reversed(blocks):
        bwd_ns = 4 * params * tokens / mp / (args.tflops * 1e12) * 1e9
        ops.append({"name": "bwd." + name, "kind": "compute",
                    "ns": max(0, round(bwd_ns / cscale)), "deps": [prev]})
        mp_allreduce("bwd.mp." + name, "bwd." + name)
        ops.append({"name": "dp." + name, "kind": "allreduce", "group": "dp",
                    "bytes": max(1, round(params // mp * 4 / scale)), "deps": ["bwd." + name]})
        prev = "bwd.mp." + name
    # MP groups: --mp consecutive ranks (a server's GPUs); DP rings: the
    # ranks of one shard index across the groups
    groups = [shard_rings(nodes, mp, args.job, args.ring_ids)]
    if args.mp_on == "fabric":
        groups.append({"name": "mp",
                       "rings": [list(range(g * mp, (g + 1) * mp)) for g in range(nodes // mp)],
                       "wire_job": args.job + mp, "wire_job_per_ring": True})
    return groups, ops


def moe_matrix(args, nodes):
    """The Ofan paper's MoE dispatch (its Fig. 13, a Qwen3-235B layer: 128
    experts, 8 active a token, 8,192 B a token copy) from a stated
    popularity model, the trace itself not being available: expert e's
    popularity is (e + 1)^-s (Zipf), s found by bisection so that the
    busiest GPU receives --skew (1.48) times the mean over the fabric;
    each token picks --topk distinct experts by popularity; experts map
    one a GPU at random (the seed).  --eplb gives each GPU two expert
    slots: the most loaded experts get a replica each (greedy on load a
    replica), slots packed onto GPUs by load, a token going to one
    replica of its expert at random.  DeepEP's hierarchical dispatch:
    a token's copies for the experts of a remote server go once, to the
    GPU of the sender's own slot there, which forwards them over NVLink;
    only those cross the fabric.  --tokens per GPU are sampled and the
    counts scaled to --mean-mb a GPU over the fabric (492)."""
    import random
    g, experts, topk = args.server_gpus, args.experts, args.topk
    if nodes % g or nodes // g < 2:
        die(f"--nodes {nodes}: not 2 or more servers of --server-gpus {g}")
    if experts != nodes:
        die(f"--experts {experts}: one expert a GPU wants {nodes}")
    if not 1 <= topk <= experts:
        die(f"--topk {topk}: wants 1..{experts}")
    servers = nodes // g

    def draw(s_exp, eplb, seed):
        rng = random.Random(seed)
        pop = [(e + 1) ** -s_exp for e in range(experts)]
        gpu_of = list(range(nodes))
        rng.shuffle(gpu_of)  # expert e on GPU gpu_of[e]
        replicas = [[gpu_of[e]] for e in range(experts)]
        if eplb:
            # one more slot a GPU: replicas for the most loaded experts
            count = [1] * experts
            for _ in range(nodes):
                e = max(range(experts), key=lambda x: pop[x] / count[x])
                count[e] += 1
            slots = sorted(((pop[e] / count[e], e) for e in range(experts)
                            for _ in range(count[e])), reverse=True)
            load, used = [0.0] * nodes, [0] * nodes
            replicas = [[] for _ in range(experts)]
            for w, e in slots:
                gpu = min((x for x in range(nodes) if used[x] < 2), key=lambda x: load[x])
                load[gpu] += w
                used[gpu] += 1
                replicas[e].append(gpu)
        tokens = args.sample_tokens
        copies = [[0] * nodes for _ in range(nodes)]  # [src][fabric dst]: token copies
        idx = list(range(experts))
        for src in range(nodes):
            ssrv, slot = src // g, src % g
            for _ in range(tokens):
                chosen = set()
                while len(chosen) < topk:
                    chosen.update(rng.choices(idx, weights=pop, k=topk - len(chosen)))
                remote = set()
                for e in chosen:
                    gpu = replicas[e][rng.randrange(len(replicas[e]))]
                    if gpu // g != ssrv:
                        remote.add(gpu // g)
                for dsrv in remote:
                    copies[src][dsrv * g + slot] += 1
        return copies

    def skew_of(copies):
        rx = [sum(copies[s][d] for s in range(nodes)) for d in range(nodes)]
        return max(rx) / (sum(rx) / nodes)

    lo, hi = 0.0, 3.0
    for _ in range(args.bisect_steps):
        mid = (lo + hi) / 2
        if skew_of(draw(mid, False, args.seed)) < args.skew:
            lo = mid
        else:
            hi = mid
    s_exp = (lo + hi) / 2
    copies = draw(s_exp, args.eplb, args.seed)
    total = sum(map(sum, copies))
    scale = args.mean_mb * 1e6 * nodes / (total * args.token_bytes)
    matrix = [[round(c * scale) * args.token_bytes for c in row] for row in copies]
    skew = skew_of(copies)
    mean_mb = sum(map(sum, matrix)) / nodes / 1e6
    source = (f"MoE dispatch, Zipf popularity exponent {s_exp:.3f} (busiest GPU {args.skew:g}x "
              f"the mean without EPLB), {'EPLB two slots a GPU, ' if args.eplb else ''}"
              f"{experts} experts, top-{topk}, {args.token_bytes} B a token copy, hierarchical "
              f"over servers of {g}: {mean_mb:.0f} MB a GPU over the fabric, the busiest "
              f"receiving {skew:.2f}x the mean; seed {args.seed}")
    return {"format": "symofan-matrix", "version": 1, "hosts": nodes, "source": source,
            "stats": {"zipf_exponent": round(s_exp, 4), "busiest_over_mean": round(skew, 4),
                      "mean_mb": round(mean_mb, 1), "eplb": args.eplb},
            "bytes": matrix}


ASTRA_KINDS = {"ALLREDUCE": "allreduce", "ALLGATHER": "allgather",
               "REDUCESCATTER": "reducescatter"}


def astra1(args, nodes):
    """An Astra-Sim 1.0 text workload: a first line naming the
    parallelism (DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA,
    HYBRID_TRANSFORMER, ... with "model_parallel_NPU_group: M"), the
    layer count, then per layer: name, a reserved field, and for the
    forward pass, the input gradient and the weight gradient each a
    compute time (cycles), a collective (ALLREDUCE, ALLGATHER,
    REDUCESCATTER or NONE) and its bytes, then an update time.  DATA
    runs every collective over all ranks; MODEL over all ranks too; a
    hybrid runs the forward and input-gradient collectives in the model
    group (--mp or the file's M consecutive ranks) and the weight
    gradients' across the groups.  The forward pass blocks on its
    collectives; the weight gradients' overlap the rest of the backward
    pass, and a layer's update follows its weight gradient's collective.
    ALLTOALL is not one of this simulator's collectives: refused."""
    try:
        with open(args.file) as f:
            lines = [ln.split() for ln in f.read().splitlines() if ln.strip()]
    except OSError as e:
        die(f"--file {args.file}: {e.strerror}")
    if len(lines) < 3:
        die(f"--file {args.file}: not an Astra-Sim 1.0 workload (a kind, a layer count, layers)")
    kind = lines[0][0]
    mp = args.mp
    if "model_parallel_NPU_group:" in lines[0]:
        i = lines[0].index("model_parallel_NPU_group:")
        try:
            mp = int(lines[0][i + 1])
        except (IndexError, ValueError):
            die(f"--file {args.file}: line 1: model_parallel_NPU_group wants a number")
    hybrid = kind.startswith("HYBRID")
    if kind not in ("DATA", "MODEL") and not hybrid:
        die(f"--file {args.file}: line 1: '{kind}' is not DATA, MODEL or HYBRID_*")
    try:
        count = int(lines[1][0])
    except ValueError:
        die(f"--file {args.file}: line 2: '{lines[1][0]}' is not the layer count")
    if len(lines) - 2 != count:
        die(f"--file {args.file}: {count} layers announced, {len(lines) - 2} given")
    cyc = args.cycle_ns / args.scale / args.compute_scale
    layers, seen = [], set()
    for n, f in enumerate(lines[2:], start=3):
        if len(f) != 12:
            die(f"--file {args.file}: line {n}: {len(f)} fields, not 12")
        try:
            times = [int(f[i]) for i in (2, 5, 8, 11)]
            sizes = [int(f[i]) for i in (4, 7, 10)]
        except ValueError:
            die(f"--file {args.file}: line {n}: a compute time or size is not a number")
        comms = [f[3], f[6], f[9]]
        for c, size in zip(comms, sizes):
            if c != "NONE" and c not in ASTRA_KINDS:
                die(f"--file {args.file}: line {n}: collective '{c}' is not ALLREDUCE, "
                    f"ALLGATHER, REDUCESCATTER or NONE")
            if c != "NONE" and size < 1:
                die(f"--file {args.file}: line {n}: {c} of {size} bytes")
        # Astra-Sim does not read the names, and its own files repeat one
        # (Transformer_HybridParallel.txt's third "layernorm2"): a name
        # seen before takes its layer's number, as "layernorm2@28"
        name = f[0] if f[0] not in seen else f"{f[0]}@{n - 2}"
        seen.add(name)
        layers.append({"name": name, "ns": [round(t * cyc) for t in times],
                       "comm": comms, "bytes": [max(1, round(x / args.scale)) for x in sizes]})
    if hybrid:
        if mp < 2 or nodes % mp or nodes // mp < 2:
            die(f"--mp {mp}: wants 2 or more groups of 2 or more ranks on --nodes {nodes}")
        groups = [{"name": "mp", "rings": [list(range(g * mp, (g + 1) * mp))
                                           for g in range(nodes // mp)],
                   "wire_job": args.job, "wire_job_per_ring": True},
                  shard_rings(nodes, mp, args.job + nodes // mp, args.ring_ids)]
        fwd_group, wg_group = "mp", "dp"
    elif args.dims:
        if any(c != "NONE" for layer in layers for c in layer["comm"][:2]):
            die("--dims: a forward or input-gradient collective in the file (a 2D ring takes "
                "the weight gradients' AllReduces)")
        if kind != "DATA":
            die(f"--dims: the file's '{kind}' is not DATA (a 2D ring takes data-parallel "
                "AllReduces)")
        groups = dp_groups(nodes, args.dims, args.job)
        fwd_group = wg_group = None
    else:
        groups = [{"name": "all", "rings": [list(range(nodes))]}]
        fwd_group = wg_group = "all"
    ops, prev = [], None
    for layer in layers:
        name = layer["name"]
        ops.append({"name": "fwd." + name, "kind": "compute", "ns": layer["ns"][0],
                    **({"deps": [prev]} if prev else {})})
        prev = "fwd." + name
        if layer["comm"][0] != "NONE":
            ops.append({"name": "fwd.comm." + name, "kind": ASTRA_KINDS[layer["comm"][0]],
                        "group": fwd_group, "bytes": layer["bytes"][0], "deps": [prev]})
            prev = "fwd.comm." + name
    updates = []
    for layer in reversed(layers):
        name = layer["name"]
        ops.append({"name": "ig." + name, "kind": "compute", "ns": layer["ns"][1], "deps": [prev]})
        prev = "ig." + name
        if layer["comm"][1] != "NONE":
            ops.append({"name": "ig.comm." + name, "kind": ASTRA_KINDS[layer["comm"][1]],
                        "group": fwd_group, "bytes": layer["bytes"][1], "deps": [prev]})
            prev = "ig.comm." + name
        ops.append({"name": "wg." + name, "kind": "compute", "ns": layer["ns"][2], "deps": [prev]})
        prev = "wg." + name
        last = prev
        if layer["comm"][2] != "NONE" and args.dims:
            if layer["comm"][2] != "ALLREDUCE":
                die(f"--dims: layer {name}'s weight gradient is a {layer['comm'][2]}, not an "
                    "ALLREDUCE")
            more, last = allreduce_ops("wg.comm." + name, layer["bytes"][2], prev, args.dims)
            ops.extend(more)
        elif layer["comm"][2] != "NONE":
            ops.append({"name": "wg.comm." + name, "kind": ASTRA_KINDS[layer["comm"][2]],
                        "group": wg_group, "bytes": layer["bytes"][2], "deps": [prev]})
            last = "wg.comm." + name
        updates.append({"name": "update." + name, "kind": "compute", "ns": layer["ns"][3],
                        "deps": [last]})
    source = f"Astra-Sim 1.0 workload {args.file} ({kind}), {args.cycle_ns:g} ns a cycle"
    if args.dims:
        source += f"; a 2D ring of {args.dims[0]} x {args.dims[1]}, AllReduce hierarchically"
    return groups, ops + updates, source


# Chakra execution traces (MLCommons' et_def.proto, the format Astra-Sim
# 2.0 reads): a file is one rank's trace, a stream of protobuf messages
# each preceded by its length as a varint; the first is the trace's
# metadata, every other one a node.  Read with the protobuf wire format's
# rules, without a protobuf runtime: the Node fields below, the rest
# skipped.  Node: 1 id, 2 name, 3 type, 4 ctrl_deps, 5 data_deps,
# 7 duration_micros, 10 attr; an attribute: 1 name, then its value in
# one field of a oneof (varints 7, 9, 11, 13, 27; zigzag 15, 17; fixed
# 19-26; 29 a string).
CHAKRA_COMP, CHAKRA_SEND, CHAKRA_RECV, CHAKRA_COLL = 4, 5, 6, 7
CHAKRA_DEP_ONLY = {0: "INVALID", 1: "METADATA", 2: "MEM_LOAD", 3: "MEM_STORE"}
CHAKRA_KINDS = {0: "allreduce", 2: "allgather", 7: "reducescatter"}
CHAKRA_COLL_NAMES = {0: "ALL_REDUCE", 1: "REDUCE", 2: "ALL_GATHER", 3: "GATHER", 4: "SCATTER",
                     5: "BROADCAST", 6: "ALL_TO_ALL", 7: "REDUCE_SCATTER",
                     8: "REDUCE_SCATTER_BLOCK", 9: "BARRIER"}


class ChakraError(Exception):
    """A trace this reader cannot take, with where and why."""


def pb_varint(buf, pos):
    """The varint at @pos of @buf and the position after it."""
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise ChakraError("a varint runs past its message")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise ChakraError("a varint of more than 10 bytes")


def pb_fields(buf):
    """(field number, wire type, value) of each field of message @buf: an
    int for varints and fixed-width values, bytes for length-delimited."""
    pos = 0
    while pos < len(buf):
        key, pos = pb_varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = pb_varint(buf, pos)
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if pos + width > len(buf):
                raise ChakraError(f"field {field} runs past its message")
            value = int.from_bytes(buf[pos:pos + width], "little")
            pos += width
        elif wire == 2:
            size, pos = pb_varint(buf, pos)
            if pos + size > len(buf):
                raise ChakraError(f"field {field} runs past its message")
            value = buf[pos:pos + size]
            pos += size
        else:
            raise ChakraError(f"field {field} has wire type {wire} (groups are not read)")
        yield field, wire, value


def pb_uints(wire, value):
    """A repeated integer field's values, packed (wire type 2) or not."""
    if wire == 0:
        return [value]
    if wire != 2:
        raise ChakraError("a list of integers that is not varints")
    out, pos = [], 0
    while pos < len(value):
        v, pos = pb_varint(value, pos)
        out.append(v)
    return out


def chakra_attr(buf):
    """An attribute's name and scalar value (None for lists and bytes; 0
    when no value is written, proto3's default; of two, the last, as
    protobuf's oneof)."""
    name, value = "", 0
    for field, wire, v in pb_fields(buf):
        if field == 1 and wire == 2:
            name = v.decode("utf-8", "replace")
        elif field == 2:
            continue    # doc_string
        elif field in (7, 9, 11, 13, 27) and wire == 0:
            value = v - (1 << 64) if field in (7, 9) and v >= 1 << 63 else v
        elif field in (15, 17) and wire == 0:
            value = (v >> 1) ^ -(v & 1)
        elif 19 <= field <= 26 and wire in (1, 5):
            value = v
        elif field == 29 and wire == 2:
            value = v.decode("utf-8", "replace")
        else:
            value = None
    return name, value


def chakra_node(buf):
    """A Node message as a dict: id, name, type, deps, duration_us, attrs."""
    node = {"id": 0, "name": "", "type": 0, "deps": [], "duration_us": 0, "attrs": {}}
    for field, wire, v in pb_fields(buf):
        if field == 1 and wire == 0:
            node["id"] = v
        elif field == 2 and wire == 2:
            node["name"] = v.decode("utf-8", "replace")
        elif field == 3 and wire == 0:
            node["type"] = v
        elif field in (4, 5):
            node["deps"] += pb_uints(wire, v)
        elif field == 7 and wire == 0:
            node["duration_us"] = v
        elif field == 10 and wire == 2:
            name, value = chakra_attr(v)
            node["attrs"][name] = value
    node["deps"] = list(dict.fromkeys(node["deps"]))   # data and control alike, once each
    return node


def read_chakra(path):
    """The nodes of the trace at @path, in file order."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        die(f"--file {path}: {e.strerror}")
    nodes, pos, index = [], 0, 0
    try:
        while pos < len(data):
            size, pos = pb_varint(data, pos)
            if pos + size > len(data):
                raise ChakraError(f"message {index} ({size} bytes) runs past the end of the file")
            if index > 0:
                nodes.append(chakra_node(data[pos:pos + size]))
            pos += size
            index += 1
    except ChakraError as e:
        die(f"--file {path}: not a Chakra trace: {e}")
    if not nodes:
        die(f"--file {path}: a Chakra trace of no nodes")
    return nodes


def chakra(args, nodes):
    """A Chakra trace (--file, one rank's: every rank of the job runs the
    same graph, as in a data-parallel job).  Compute nodes (COMP_NODE, on
    the GPU or the CPU) are compute ops of their duration_micros, or, at
    0, their num_ops FLOPs at --tflops; collectives (COMM_COLL_NODE) of
    comm_type ALL_REDUCE, ALL_GATHER or REDUCE_SCATTER are the job's
    collectives of comm_size bytes over all its ranks (involved_dim and
    process groups are not read: one ring of every rank); METADATA,
    memory and INVALID nodes take no time, their dependents taking their
    dependencies in their place.  Point-to-point nodes and the other
    collectives are refused.  The ops follow the graph's dependency order
    (data and control alike), ties in file order; each rank runs its
    compute ops one at a time and its collectives one at a time, as
    Astra-Sim's GPU does."""
    trace = read_chakra(args.file)
    where = f"--file {args.file}"
    by_id = {}
    for i, n in enumerate(trace):
        if n["id"] in by_id:
            die(f"{where}: node {n['id']} appears twice")
        by_id[n["id"]] = i
        if n["type"] in (CHAKRA_SEND, CHAKRA_RECV):
            die(f"{where}: node {n['id']} ('{n['name']}') is a point-to-point "
                f"{'send' if n['type'] == CHAKRA_SEND else 'receive'}: not read")
        if n["type"] == CHAKRA_COLL:
            ctype = n["attrs"].get("comm_type", 0)
            if ctype not in CHAKRA_KINDS:
                die(f"{where}: node {n['id']} ('{n['name']}'): comm_type "
                    f"{CHAKRA_COLL_NAMES.get(ctype, ctype)} is not ALL_REDUCE, ALL_GATHER "
                    f"or REDUCE_SCATTER")
            size = n["attrs"].get("comm_size", 0)
            if not isinstance(size, int) or size < 1:
                die(f"{where}: node {n['id']} ('{n['name']}'): comm_size {size} is not a "
                    f"byte count")
        elif n["type"] != CHAKRA_COMP and n["type"] not in CHAKRA_DEP_ONLY:
            die(f"{where}: node {n['id']} ('{n['name']}'): type {n['type']} is not a Chakra "
                f"node type")
    for n in trace:
        for d in n["deps"]:
            if d not in by_id:
                die(f"{where}: node {n['id']} depends on node {d}, which the trace does not have")

    # Kahn's order, ties in file order
    waiting = [len(n["deps"]) for n in trace]
    children = [[] for _ in trace]
    for i, n in enumerate(trace):
        for d in n["deps"]:
            children[by_id[d]].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for c in children[i]:
            waiting[c] -= 1
            if waiting[c] == 0:
                heapq.heappush(ready, c)
    if len(order) != len(trace):
        stuck = next(trace[i]["id"] for i, w in enumerate(waiting) if w > 0)
        die(f"{where}: the dependencies have a cycle (through node {stuck})")

    cscale = args.scale * args.compute_scale
    ops, op_of = [], {}   # op_of: node index -> the op names it stands for
    for i in order:
        n = trace[i]
        deps = sorted({name for d in n["deps"] for name in op_of[by_id[d]]})
        if n["type"] in CHAKRA_DEP_ONLY:
            op_of[i] = deps
            continue
        name = f"{n['name'] or 'node'}#{n['id']}"
        if n["type"] == CHAKRA_COMP:
            ns = n["duration_us"] * 1000
            flops = n["attrs"].get("num_ops", 0)
            if ns == 0 and isinstance(flops, int) and flops > 0:
                ns = flops / (args.tflops * 1e3)
            op = {"name": name, "kind": "compute", "ns": max(0, round(ns / cscale))}
        else:
            op = {"name": name, "kind": CHAKRA_KINDS[n["attrs"].get("comm_type", 0)],
                  "group": "all", "bytes": max(1, round(n["attrs"]["comm_size"] / args.scale))}
        if deps:
            op["deps"] = deps
        ops.append(op)
        op_of[i] = [name]
    if not ops:
        die(f"{where}: no compute or collective nodes")
    groups = [{"name": "all", "rings": [list(range(nodes))]}]
    return groups, ops, f"Chakra trace {args.file}: {len(trace)} nodes, {len(ops)} ops"


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("model", choices=["dp", "resnet50", "vgg16", "transformer", "astra1", "chakra",
                                      "moe"])
    ap.add_argument("--nodes", type=int, default=128, help="ranks, one a host (default 128)")
    ap.add_argument("--first-host", type=int, default=0, help="the job's hosts start here (default 0)")
    ap.add_argument("--order", choices=["host", "rail"], default=None,
                    help="rank placement: host (rank r on host r) or rail (round-robin over "
                         "the ToRs; default for the data-parallel models; transformer: host)")
    ap.add_argument("--hosts-per-tor", type=int, default=16,
                    help="hosts a ToR, for --order rail (default 16: sim_symphony.sh's 128 nodes)")
    ap.add_argument("--iterations", type=int, default=1, help="training iterations (default 1)")
    ap.add_argument("--job", type=int, default=1, help="job ID (default 1)")
    ap.add_argument("--batch", type=int, default=32, help="samples a rank and iteration (default 32)")
    ap.add_argument("--tokens", type=int, default=262144,
                    help="transformer: tokens a data-parallel rank and iteration (default 262144: "
                         "512 sequences of 512)")
    ap.add_argument("--mp-on", choices=["scaleup", "fabric"], default="scaleup",
                    help="transformer: the tensor-parallel AllReduces inside the server "
                         "(default) or over the fabric")
    ap.add_argument("--scaleup-gbps", type=float, default=2400,
                    help="transformer --mp-on scaleup: the server's GPU-to-GPU bandwidth, "
                         "Gbit/s (default 2400: NVLink's 300 GB/s)")
    ap.add_argument("--mp", type=int, default=8,
                    help="transformer: ranks a tensor-parallel group (default 8)")
    ap.add_argument("--ring-ids", choices=["per-ring", "one"], default="per-ring",
                    help="transformer, an astra1 hybrid: the data-parallel rings' job ID on "
                         "the wire, one per ring (default: each ring its own step minimum) or "
                         "one for them all (the Symphony paper's: one job ID a job)")
    ap.add_argument("--tflops", type=float, default=15.0,
                    help="sustained compute, TFLOP/s a rank (default 15: a V100's FP32 "
                         "tensor-core rate)")
    ap.add_argument("--images-per-s", type=float, default=0,
                    help="resnet50, vgg16: the accelerator's measured training throughput, "
                         "samples a second, setting the compute rate instead of --tflops "
                         "(e.g. 1200: ResNet-50 v1.5 on a V100 16GB, mixed precision, NVIDIA's "
                         "DeepLearningExamples)")
    ap.add_argument("--dims", default="",
                    help="data parallel (dp, resnet50, vgg16, an astra1 DATA file): RxC, a 2D "
                         "ring of rows of R consecutive ranks and columns of C (R x C = --nodes), "
                         "AllReduce hierarchically, ranks on hosts in order unless --order says "
                         "(default: one ring of every rank)")
    ap.add_argument("--bytes-per-param", type=int, default=4,
                    help="gradient bytes a parameter (default 4: FP32)")
    ap.add_argument("--bucket-mb", type=float, default=0,
                    help="data parallel: AllReduce buckets of at least this many MiB, as DDP's "
                         "(default 0: a layer each, as Astra-Sim's DATA workloads)")
    ap.add_argument("--compute-scale", type=float, default=1,
                    help="divide every compute time by this (Fig. 6: 1 to 64; default 1)")
    ap.add_argument("--scale", type=float, default=1,
                    help="divide compute times and bytes alike (default 1)")
    ap.add_argument("--layers", default="",
                    help="dp: FWD_US:BWD_US:GRAD_BYTES per layer, first to last, comma-separated")
    ap.add_argument("--file", default="",
                    help="astra1: the Astra-Sim 1.0 workload file; chakra: one rank's Chakra "
                         "execution trace (.et)")
    ap.add_argument("--cycle-ns", type=float, default=1.0,
                    help="astra1: nanoseconds a compute cycle (default 1: a 1 GHz clock)")
    ap.add_argument("--server-gpus", type=int, default=8, help="moe: GPUs a server (default 8)")
    ap.add_argument("--experts", type=int, default=128, help="moe: experts, one a GPU (default 128)")
    ap.add_argument("--topk", type=int, default=8, help="moe: experts a token (default 8)")
    ap.add_argument("--token-bytes", type=int, default=8192,
                    help="moe: bytes a token copy (default 8192: hidden 4096 in BF16)")
    ap.add_argument("--skew", type=float, default=1.48,
                    help="moe: the busiest GPU's fabric bytes over the mean without EPLB "
                         "(default 1.48, the paper's trace)")
    ap.add_argument("--mean-mb", type=float, default=492,
                    help="moe: MB a GPU sends over the fabric (default 492, the paper's)")
    ap.add_argument("--eplb", action="store_true", help="moe: two expert slots a GPU (EPLB)")
    ap.add_argument("--sample-tokens", type=int, default=1000,
                    help="moe: tokens sampled a GPU, scaled to --mean-mb (default 1000)")
    ap.add_argument("--bisect-steps", type=int, default=12,
                    help="moe: bisection steps for the popularity exponent (default 12)")
    ap.add_argument("--seed", type=int, default=1, help="moe: the draws' seed (default 1)")
    ap.add_argument("--out", default="-", help="the workload file (default stdout)")
    args = ap.parse_args()

    nodes = args.nodes
    if nodes < 2 or nodes > 100000:
        die(f"--nodes {nodes}: wants 2..100000")
    for opt in ("iterations", "batch", "tokens", "hosts_per_tor", "job"):
        if getattr(args, opt) < 1:
            die(f"--{opt.replace('_', '-')} {getattr(args, opt)}: wants 1 or more")
    for opt in ("tflops", "compute_scale", "scale", "scaleup_gbps"):
        if not getattr(args, opt) > 0:
            die(f"--{opt.replace('_', '-')} {getattr(args, opt)}: wants more than 0")
    if args.bucket_mb < 0:
        die(f"--bucket-mb {args.bucket_mb}: wants 0 or more")
    if args.images_per_s < 0:
        die(f"--images-per-s {args.images_per_s:g}: wants more than 0")
    if args.images_per_s and args.model not in ("resnet50", "vgg16"):
        die("--images-per-s is for the resnet50 and vgg16 models")
    args.dims = parse_dims(args.dims, nodes) if args.dims else None
    if args.dims and args.model not in ("dp", "resnet50", "vgg16", "astra1"):
        die("--dims is for the data-parallel models (dp, resnet50, vgg16, an astra1 DATA file)")
    if args.ring_ids == "one" and args.model not in ("transformer", "astra1"):
        die("--ring-ids is for the transformer and astra1 hybrids (the data-parallel models' "
            "rings share the job's ID)")
    if args.first_host < 0:
        die(f"--first-host {args.first_host}: wants 0 or more")
    if (args.model == "dp") != bool(args.layers):
        die("--layers is for the dp model, which needs it")

    if args.model == "moe":
        if args.skew < 1 or args.mean_mb <= 0 or args.sample_tokens < 1 or args.token_bytes < 1:
            die("--skew wants 1 or more; --mean-mb, --sample-tokens and --token-bytes more than 0")
        write_doc(moe_matrix(args, nodes), args.out)
        return
    if (args.model in ("astra1", "chakra")) != bool(args.file):
        die("--file is for the astra1 and chakra models, which need it")
    if args.cycle_ns <= 0:
        die(f"--cycle-ns {args.cycle_ns}: wants more than 0")
    if args.model == "astra1":
        order = args.order or "host"
        groups, ops, source = astra1(args, nodes)
    elif args.model == "chakra":
        order = args.order or "host"
        groups, ops, source = chakra(args, nodes)
    elif args.model == "transformer":
        order = args.order or "host"
        groups, ops = transformer(args, nodes)
        source = ("the original Transformer (big) from its architecture; "
                  f"{args.tokens} tokens a data-parallel rank at {args.tflops:g} TFLOP/s, "
                  f"tensor parallel over {args.mp} ({args.mp_on})")
    else:
        # a 2D ring's rows along the ToRs' hosts and its columns across
        # the ToRs, as Table 1's grid; one ring: every hop across them
        order = args.order or ("host" if args.dims else "rail")
        if args.model == "dp":
            layers = parse_layers(args.layers)
            source = "hand-given layers"
        else:
            layers = with_times(resnet50() if args.model == "resnet50" else vgg16(), args)
            params = sum(layer["params"] for layer in layers)
            source = (f"{args.model} from its architecture: {params} parameters, "
                      f"{sum(layer['flops'] for layer in layers) / 2e9:.2f} GMACs a sample; "
                      f"batch {args.batch} a rank at {args.tflops:g} TFLOP/s"
                      + (f" ({args.images_per_s:g} samples/s measured)" if args.images_per_s else ""))
        groups = dp_groups(nodes, args.dims, args.job)
        if args.dims:
            source += f"; a 2D ring of {args.dims[0]} x {args.dims[1]}, AllReduce hierarchically"
        if args.bucket_mb:
            source += f"; DDP buckets of {args.bucket_mb:g} MiB"
        ops = data_parallel(args, layers, args.bytes_per_param)
    args.order = order
    hosts = [args.first_host + h for h in placement(args, nodes)]
    if args.compute_scale != 1 or args.scale != 1:
        source += f"; compute / {args.compute_scale * args.scale:g}, bytes / {args.scale:g}"
    doc = {
        "format": "symofan-workload", "version": 1,
        "name": f"{args.model}-{nodes}",
        "source": source,
        "jobs": [{"job": args.job, "hosts": hosts, "iterations": args.iterations,
                  "groups": groups, "ops": ops}],
    }
    write_doc(doc, args.out)


def write_doc(doc, path):
    """One line of JSON to @path, or stdout for "-"."""
    text = json.dumps(doc, separators=(",", ":")) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        die(f"--out {path}: {e.strerror}")


if __name__ == "__main__":
    main()
