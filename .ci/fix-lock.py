# After any `npm install`: re-add lock entries for optional msgpackr-extract platform packages
# that this registry does not serve (404), so `npm ci` accepts the lock. Usage: python3 .ci/fix-lock.py package-lock.json
import json,sys
p=sys.argv[1]
d=json.load(open(p))
pk=d['packages']
for name,os_,cpu in [('darwin-arm64','darwin','arm64'),('darwin-x64','darwin','x64'),('linux-arm','linux','arm'),('win32-x64','win32','x64')]:
    key=f'node_modules/@msgpackr-extract/msgpackr-extract-{name}'
    pk.setdefault(key,{"version":"3.0.7","cpu":[cpu],"license":"MIT","optional":True,"os":[os_]})
d['packages']=dict(sorted(pk.items(), key=lambda kv: (kv[0]!='', kv[0])))
json.dump(d,open(p,'w'),indent=2)
open(p,'a').write('\n')
