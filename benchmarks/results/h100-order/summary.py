#!/usr/bin/env python3
# summary.py FOLDER: port / best native per shape and order from call 59's CSVs (README.md).
import csv, statistics, sys, os, collections
d=sys.argv[1]
names=[n for n in ['gcc-rotate','gcc-apart','gcc-rotate-active','clang-rotate','clang-apart'] if os.path.exists(f'{d}/{n}.csv')]
shapes=[]
data={}
for n in names:
    for r in csv.DictReader(open(f'{d}/{n}.csv')):
        if r['impl']!='port': continue
        if r['shape'] not in shapes: shapes.append(r['shape'])
        data.setdefault((n,r['shape']),[]).append(float(r['ratio_native']))
print('port / best native, 16 threads, --mb 64: median over rounds [min-max], n rounds')
print('%-10s'%'shape'+''.join('%-24s'%n for n in names))
for s in shapes:
    row='%-10s'%s
    for n in names:
        v=data.get((n,s),[])
        row+='%-24s'%('%.2f [%.2f-%.2f] %d'%(statistics.median(v),min(v),max(v),len(v)) if v else '-')
    print(row)
for n in names:
    v=[statistics.median(data[(n,s)]) for s in shapes if (n,s) in data]
    print(n,'worst %.2f median %.2f'%(min(v),statistics.median(v)))
