-- tests/enforce/private_tmp.lua WORKDIR CMD…: runs CMD under workspace-write with --private-tmp through
-- cordon.c.linux directly (cordon run has no --private-tmp option yet). Exit status: CMD's, or 125.
local linux = require "cordon.c.linux"
local profile = require "cordon.c.profile"
local sys = require "cordon.c.sys"
local workdir = arg[1]
local argv = table.move(arg, 2, #arg, 1, {})
local ctx = { cwd = workdir, workspace_roots = { workdir }, home = sys.getenv("HOME") }
local plan, err = linux.compile(nil, profile.standard("workspace-write"), ctx, { private_tmp = true })
if not plan then
  io.stderr:write("cordon: ", err, "\n")
  return 125
end
local _, xerr, code = linux.exec(plan, argv, { PATH = "/usr/bin:/bin", HOME = ctx.home }, workdir)
io.stderr:write("cordon: ", xerr, "\n")
return code == "command_not_found" and 127 or code == "command_not_executable" and 126 or 125
