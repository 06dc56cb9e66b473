import csv,re,collections,sys
name=sys.argv[1]
rows=list(csv.reader(open(name+'-sass.csv')))
hdr=rows[1]; data=rows[2:]
ix=hdr.index('Instructions Executed'); iss=hdr.index('Warp Stall Sampling (All Samples)')
ith=hdr.index('Avg. Threads Executed')
blocks=[]; cur=None
for r in data:
    n=float(r[ix] or 0); src=r[1]; s=float(r[iss] or 0)
    op=re.sub(r'^@!?U?P\w+\s+','',src).split()[0] if src.strip() else '?'
    if cur is None or n!=cur['n']:
        cur={'addr':r[0],'n':n,'ops':collections.Counter(),'len':0,'samp':0,'th':r[ith]}
        blocks.append(cur)
    cur['ops'][op.split('.')[0]]+=1; cur['len']+=1; cur['samp']+=s
tot=sum(b['n']*b['len'] for b in blocks); ts=sum(b['samp'] for b in blocks)
print(name,'total',tot,'samples',ts)
for b in blocks:
    if b['n']*b['len']>=0.004*tot or b['samp']>=0.004*ts:
        print('%s n=%9d len=%4d instr=%5.1f%% samp=%5.1f%% th=%s %s'%(b['addr'],b['n'],b['len'],100*b['n']*b['len']/tot,100*b['samp']/ts,b['th'],' '.join('%s%d'%(k,v) for k,v in b['ops'].most_common(7))))
