# markers on dependencies and on root requirements are evaluated against
# the target environment (python_version, platform)
env python=3.12.3 sys_platform=linux platform_system=Linux platform_machine=x86_64
index pypi 0 tags <inline>
#>=Pkg: app 1.0
#>=Req: tomli>=1.1; python_version < "3.11"
#>=Req: pywin32>=300; sys_platform == "win32"
#>=Req: uvloop; sys_platform != "win32" and platform_python_implementation == "CPython"
#>=Req: setuptools; python_version >= "3.12"
#>=Pkg: tomli 2.0.1
#>=Pkg: pywin32 306
#>=Pkg: uvloop 0.21.0
#>=Pkg: setuptools 80.9.0
require <inline>
#>app
#>pywin32; sys_platform == "win32"
result solution <inline>
#>install app 1.0
#>install setuptools 80.9.0
#>install uvloop 0.21.0
next

# the same world for an older python on macOS-like platform values
env python=3.10.14 sys_platform=darwin platform_system=Darwin
require <inline>
#>app
result solution <inline>
#>install app 1.0
#>install tomli 2.0.1
#>install uvloop 0.21.0
