#!/usr/bin/env python3
# pred.py STEPS.csv.gz ...: from bench_corpus --steps rows, each parallel implementation's median
# step time after the serial original and after a parallel step (README.md, call 60).
import csv, gzip, statistics, sys, collections
# each parallel implementation's step time: after the serial original / after a parallel step;
# the warm-up repetition (rep 0) left out, as bench_corpus leaves it out of its statistics
for f in sys.argv[1:]:
    rows=list(csv.DictReader(gzip.open(f,'rt')))
    print(f)
    print('%-10s %-12s %9s %9s %7s  (n)' % ('shape','impl','after S','after P','slower'))
    g=collections.defaultdict(lambda: ([],[]))
    order=[]
    for r in rows:
        if r['rep']=='0' or r['impl']=='serial' or r['prev']=='': continue
        key=(r['shape'],r['impl'])
        if key not in order: order.append(key)
        g[key][0 if r['prev']=='serial' else 1].append(float(r['seconds']))
    allr=[]
    for k in order:
        a,b=g[k]
        if a and b:
            ra=statistics.median(a)/statistics.median(b); allr.append(ra)
            print('%-10s %-12s %9.3f %9.3f %7.2f  (%d, %d)'%(k[0],k[1],statistics.median(a)*1e3,statistics.median(b)*1e3,ra,len(a),len(b)))
        else:
            print('%-10s %-12s %9s %9.3f %7s  (%d, %d)'%(k[0],k[1],'-',statistics.median(b)*1e3,'-',len(a),len(b)))
    print('median slow-down after the serial step: %.2f (range %.2f-%.2f)'%(statistics.median(allr),min(allr),max(allr)))
