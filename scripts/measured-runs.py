#!/usr/bin/env python3
"""Issue 19, target 6: the paper-scale runs actually measured, as a Markdown table.

Each FILE is the output of `/usr/bin/time -v gridsched run SPEC [--label L] --out DIR …` or
`/usr/bin/time -v gridsched reproduce NAME… --out DIR …` (the log may hold other lines too). For
every file: the experiment(s), the label, the runs in the store(s) it wrote (read-only from
DIR/store.db, or DIR/NAME/store.db for reproduce), CPU time (user + sys), wall time, the share of
a core it got (the machine is shared, so wall time says little) and peak RSS; next to it the
paper-scale run count and CPU estimate of bench/issue19-s5-paperscale.tsv.

A relative --out is resolved against the folder above the file's folder (the runs were started
there). Usage: scripts/measured-runs.py [--estimates TSV] FILE…"""
import os, re, shlex, sqlite3, sys


def parse(path):
    text = open(path, encoding='utf-8', errors='replace').read()
    m = re.search(r'Command being timed: "(.*)"', text)
    if not m:
        return None
    cmd = shlex.split(m.group(1))
    val = lambda k: re.search(re.escape(k) + r': (.*)', text).group(1).strip()
    wall = val('Elapsed (wall clock) time (h:mm:ss or m:ss)')
    secs = 0.0
    for part in wall.split(':'):
        secs = secs * 60 + float(part)
    return dict(cmd=cmd, cpu=float(val('User time (seconds)')) + float(val('System time (seconds)')),
                wall=secs, rss=int(val('Maximum resident set size (kbytes)')) * 1024)


def runs_in(db):
    if not os.path.exists(db):
        return None
    c = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
    try:
        return c.execute('select count(*) from runs').fetchone()[0]
    finally:
        c.close()


def main():
    args = sys.argv[1:]
    est = {}
    if args[:1] == ['--estimates']:
        for line in open(args[1]).read().splitlines()[1:]:
            f = line.split('\t')
            est[f[0]] = (int(f[2]), float(f[5]))
        args = args[2:]
    print('| experiment | label | runs measured | paper-scale runs | CPU (user+sys) | CPU estimated | wall | core share | peak RSS |')
    print('|---|---|---:|---:|---:|---:|---:|---:|---:|')
    for path in args:
        r = parse(path)
        if r is None:
            continue
        cmd = r['cmd']
        if not any(a in ('run', 'reproduce') for a in cmd):
            # A script of `reproduce NAME --out DIR` calls, one per experiment, logging
            # "=== NAME start/end" lines (the seed-003 re-run): one row for the whole script.
            text = open(path, encoding='utf-8', errors='replace').read()
            names = re.findall(r'^=== (\S+) end ', text, re.M)
            script = open(cmd[-1]).read() if os.path.exists(cmd[-1]) else ''
            m = re.search(r'^O=(\S+)', script, re.M)
            runs = [runs_in(os.path.join(m.group(1), n, 'store.db')) for n in names] if m else []
            nruns = sum(x for x in runs if x)
            known = [n for n in names if n in est]
            print(f"| {len(names)} experiments ({names[0]} … {names[-1]}), one `reproduce` each | paper | "
                  f"{nruns} | {sum(est[n][0] for n in known)} ({len(known)} of them estimated) | {r['cpu']:,.0f} s | "
                  f"{sum(est[n][1] for n in known):,.0f} s | {r['wall'] / 60:,.1f} min | {r['cpu'] / r['wall']:.2f} | "
                  f"{r['rss'] / 2**20:,.0f} MiB |")
            continue
        i = next(k for k, a in enumerate(cmd) if a in ('run', 'reproduce'))
        verb, rest = cmd[i], cmd[i + 1:]
        opt = lambda name: rest[rest.index(name) + 1] if name in rest else None
        out = opt('--out')
        if out and not os.path.isabs(out):
            out = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))), out)
        label = opt('--label') or ('paper' if verb == 'reproduce' else '(spec default)')
        if verb == 'run':
            names = [os.path.basename(rest[0]).rsplit('.', 1)[0]]
            dbs = [os.path.join(out, 'store.db')]
        else:
            names = []
            for a in rest:
                if a.startswith('-') or a in (out, opt('--workers')):
                    continue
                if os.path.exists(os.path.join(out, a, 'store.db')):
                    names.append(a)
                else:  # a system's name (reproduce reservations): its experiments' folders
                    names += sorted(d for d in os.listdir(out) if d.startswith(a + '-')
                                    and os.path.exists(os.path.join(out, d, 'store.db')))
            dbs = [os.path.join(out, n, 'store.db') for n in names]
        runs = [runs_in(d) for d in dbs]
        nruns = sum(x for x in runs if x) if any(runs) else None
        pruns = sum(est[n][0] for n in names if n in est) if all(n in est for n in names) else None
        pcpu = sum(est[n][1] for n in names if n in est) if all(n in est for n in names) else None
        print(f"| {', '.join(names)} | {label} | {nruns if nruns is not None else '?'} | "
              f"{pruns if pruns is not None else '—'} | {r['cpu']:,.0f} s | "
              f"{f'{pcpu:,.0f} s' if pcpu is not None else '—'} | {r['wall'] / 60:,.1f} min | "
              f"{r['cpu'] / r['wall']:.2f} | {r['rss'] / 2**20:,.0f} MiB |")


if __name__ == '__main__':
    main()
