#!/usr/bin/env python3
"""Seed 000 (issue 15): can the flurry that the archive's cleaning removed explain the paper's
admitted-by-both count?

The paper used OSC-Clust-2000-2.1-cln (80,714 jobs); our trace is 3.1-cln, which drops user 174's
flurry (44,617 jobs, the trace header says so). The flurry's jobs are not available. This script
stands in for them: the cleaned trace plus 44,617 one-CPU jobs of W seconds each, either spread
uniformly over the log or in one two-week burst in its middle, for several W. It then runs
seed 000's OSC set-up (λ = 240 s, flexibility 0, background queued at the start) and prints, per
stand-in, the requests admitted by both SRRM_r and DRRM (the paper: 1,073 of ≈ 8,071, 13%), the
flurry's total work as a share of the machine's capacity (178 CPUs over the log's span: the flurry
really ran on the cluster, so the share plus the cleaned trace's 12.8% cannot exceed 1), and
AP_SRRM_r / AP_DRRM at λ = 300 s (the paper: 1.27).

Usage: scripts/osc-flurry.py GRIDSCHED_BINARY OUTDIR [REPLICATIONS]
(traces and specs are written under OUTDIR, never into the repository; GRIDSCHED_TRACES must
name the folder holding OSC-Clust-2000-3.1-cln.swf.gz, default ../shared/traces)."""
import csv, gzip, os, random, shutil, subprocess, sys

N_FLURRY = 44617
SPREAD = [60, 3600, 14400, 43200, 86400, 172800]
BURST = [60, 43200, 172800]
OSC = 'OSC-Clust-2000-3.1-cln.swf.gz'


def read_trace(path):
    head, jobs = [], []
    for line in gzip.open(path, 'rt'):
        if line.startswith(';'):
            head.append(line)
        elif len(line.split()) == 18:
            jobs.append(line.split())
    return head, jobs


def write_stand_in(head, jobs, out, work, mode):
    t0, t1 = float(jobs[0][1]), float(jobs[-1][1])
    r = random.Random(174)
    if mode == 'spread':
        ts = [r.uniform(t0, t1) for _ in range(N_FLURRY)]
    else:
        mid = (t0 + t1) / 2
        ts = [mid + r.uniform(0, 14 * 86400) for _ in range(N_FLURRY)]
    extra = [['0', '%d' % t, '0', '%d' % work, '1', '-1', '-1', '1', '%d' % work, '-1', '1', '174',
              '-1', '-1', '-1', '-1', '-1', '-1'] for t in ts]
    alljobs = sorted(jobs + extra, key=lambda f: float(f[1]))
    tmp = out + '.tmp'
    with open(tmp, 'w') as o:
        o.writelines(h for h in head if 'MaxJobs' not in h and 'MaxRecords' not in h)
        for i, f in enumerate(alljobs, 1):
            o.write(' '.join([str(i)] + f[1:]) + '\n')
    os.replace(tmp, out)


def spec(name, traces, reps, both):
    lines = [f'name: {name}',
             'description: issue 15 probe, written by scripts/osc-flurry.py',
             'workload:',
             '  model: trace-reservations',
             f'  params: {{trace: {OSC}, fraction: 0.1, lambda: 240, flexibility: 0, background: start}}']
    if both:
        lines += ['  admitted_by_both: true', '  admitted_at: 0']
    lines += ['policies: [srrm-r, drrm]', 'grid:', f'  workload.params.trace: [{", ".join(traces)}]']
    if not both:
        lines += ['  workload.params.lambda: [300]']
    lines += [f'replications: {{count: {reps}}}', 'seed: 2011',
              'metrics: [admitted]' if both else 'metrics: [ap]']
    return '\n'.join(lines) + '\n'


def main():
    binary = shutil.which(sys.argv[1]) or os.path.abspath(sys.argv[1])
    outdir = os.path.abspath(sys.argv[2])
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    src = os.environ.get('GRIDSCHED_TRACES', '../shared/traces')
    tdir = os.path.join(outdir, 'traces')
    os.makedirs(tdir, exist_ok=True)
    link = os.path.join(tdir, OSC)
    if not os.path.exists(link):
        os.symlink(os.path.abspath(os.path.join(src, OSC)), link)
    head, jobs = read_trace(link)
    capacity = 178 * (float(jobs[-1][1]) - float(jobs[0][1]))
    base = sum(float(f[3]) * int(f[4]) for f in jobs if float(f[3]) > 0 and int(f[4]) > 0) / capacity
    names = [OSC]
    for mode, ws in (('spread', SPREAD), ('burst', BURST)):
        for w in ws:
            n = f'osc-flurry-{mode}-{w}.swf'
            if not os.path.exists(os.path.join(tdir, n)):
                write_stand_in(head, jobs, os.path.join(tdir, n), w, mode)
            names.append(n)
    env = dict(os.environ, GRIDSCHED_TRACES=tdir)
    res = {}
    for kind, both in (('both', True), ('ap', False)):
        sp = os.path.join(outdir, f'{kind}.yaml')
        with open(sp, 'w') as f:
            f.write(spec(f'osc-flurry-{kind}', names, reps, both))
        subprocess.run([binary, 'run', sp, '--out', os.path.join(outdir, kind), '--quiet', '--resume'],
                       env=env, check=True)
        for r in csv.DictReader(open(os.path.join(outdir, kind, 'aggregate.csv'))):
            res[(kind, r['workload.params.trace'], r['policy'])] = (float(r['mean']), float(r['ci95_halfwidth']))
    print(f'OSC admitted-by-both with a stand-in for the removed flurry (λ = 240 s, flexibility 0, '
          f'{reps} replications; AP ratio at λ = 300 s). Cleaned trace: {base:.3f} of capacity.')
    print()
    print('| trace | flurry job (1 CPU) | flurry work / capacity | requests ≈ | admitted by both | share | AP_SRRM_r / AP_DRRM (300 s) |')
    print('|---|---|---:|---:|---:|---:|---:|')
    for n in names:
        if n == OSC:
            desc, fw, jobs_n = 'none (3.1-cln)', 0.0, len(jobs)
        else:
            mode, w = n[:-len('.swf')].split('-')[2:4]  # osc-flurry-MODE-W.swf
            w = int(w)
            desc = f'{w:,} s, {mode}'
            fw = N_FLURRY * w / capacity
            jobs_n = len(jobs) + N_FLURRY
        req = 0.1 * jobs_n
        b, bh = res[('both', n, 'drrm')]
        s, _ = res[('ap', n, 'srrm-r')]
        d, _ = res[('ap', n, 'drrm')]
        note = ' (over capacity)' if base + fw > 1 else ''
        print(f'| {n} | {desc} | {fw:.3f}{note} | {req:,.0f} | {b:,.0f} ± {bh:,.0f} | {b / req:.3f} | {s / d:.3f} |')


if __name__ == '__main__':
    main()
