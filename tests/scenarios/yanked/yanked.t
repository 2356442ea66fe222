# yanked releases (PEP 592) are used only when pinned exactly
env python=3.12.3
index pypi 0 tags <inline>
#>=Pkg: lib 1.0
#>=Pkg: lib 1.1
#>=Ynk: broken wheel
#>=Pkg: app 1.0
#>=Req: lib>=1.1
require <inline>
#>lib
result solution <inline>
#>install lib 1.0
next

require <inline>
#>lib==1.1
result solution <inline>
#>install lib 1.1
next

require <inline>
#>lib===1.1
result solution <inline>
#>install lib 1.1
next

# a range does not reach the yanked release
require <inline>
#>app
result problem <inline>
#>problem Because req:1 requires app and every version of app depends on lib>=1.1 but the matching versions of lib are yanked, the requirements cannot be satisfied.
#>problem culprit req:1 app
