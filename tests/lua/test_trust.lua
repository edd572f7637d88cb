-- tests/lua/test_trust.lua — the workdir trust decision: canonical paths, planted symlinks, unsafe files.
local t = require "harness"
local trust = require "cordon.trust"
local sys = require "cordon.c.sys"

local sh, q, write, tmpdir = t.sh, t.q, t.write, t.tmpdir

local root = tmpdir()
local cfg = root .. "/h/.config/cordon"
local list = cfg .. "/trusted-workdirs"
sh("mkdir -p " .. q(cfg) .. " " .. q(root .. "/w") .. " " .. q(root .. "/rw/inner") .. " " .. q(root .. "/rw/other"))
sh("chmod 700 " .. q(cfg))

local HASH = trust.hash("enable: [ssh]\n")  -- the workdir config the entries below pin

local function decide(workdir, extra)
  local req = { workdir = workdir, list_path = list, flag = false, hash = HASH }
  for k, v in pairs(extra or {}) do req[k] = v end
  return trust.decide(req)
end

t.test("normalize collapses slashes, dots and dot-dots lexically", function()
  t.eq(trust.normalize("/a//b/./c/"), "/a/b/c")
  t.eq(trust.normalize("/a/b/../c"), "/a/c")
  t.eq(trust.normalize("/../x"), "/x")
  t.eq(trust.normalize("/"), "/")
end)

t.test("within respects path segments", function()
  t.ok(trust.within("/repo", "/repo/a"))
  t.ok(trust.within("/repo", "/repo"))
  t.ok(not trust.within("/repo", "/repo2"))
  t.ok(trust.within("/", "/x"))
end)

t.test("a pinned entry reads its hash and its directory, spaces included", function()
  local e = assert(trust.read_list("L", HASH .. " /a b/c\n/old\n"))
  t.eq(e[1].hash, HASH)
  t.eq(e[1].path, "/a b/c")
  t.eq(e[2].hash, nil, "an entry without a hash is read, and trusts nothing")
  local _, msg = trust.read_list("L", "sha256:abc /x\n")
  t.ok(msg:find("^config_error: L:1:1: a pinned entry is sha256:<64"), msg)
  _, msg = trust.read_list("L", "sha256:" .. string.rep("A", 64) .. " /x\n")
  t.ok(msg, "upper-case hex is refused: the hash is compared as text")
end)

t.test("an entry trusts only the file whose hash it pins", function()
  write(list, HASH .. " " .. root .. "/w\n")
  sh("chmod 600 " .. q(list))
  t.eq(assert(decide(root .. "/w")).trusted, true)
  local d = assert(decide(root .. "/w", { hash = trust.hash("profile: danger-full-access\n") }))
  t.eq(d.trusted, false)
  t.ok(d.reason:find("changed since you trusted it", 1, true) and d.reason:find("cordon trust " .. root .. "/w", 1, true),
    d.reason)
  d = assert(decide(root .. "/w", { hash = false }))
  t.eq(d.trusted, false, "a file that could not be read is not trusted")
end)

t.test("an entry without a hash trusts nothing and says how to pin it", function()
  write(list, root .. "/w\n")
  local d = assert(decide(root .. "/w"))
  t.eq(d.trusted, false)
  t.ok(d.reason:find("without the hash", 1, true) and d.reason:find("cordon trust", 1, true), d.reason)
end)

t.test("an entry may pin the files the config names: files=sha256:HEX before the directory", function()
  local F = trust.hash("files")
  local e = assert(trust.read_list("L", HASH .. " files=" .. F .. " /a b/c\n"))
  t.eq(e[1].hash, HASH)
  t.eq(e[1].files, F)
  t.eq(e[1].path, "/a b/c")
  local _, msg = trust.read_list("L", HASH .. " files=sha256:abc /x\n")
  t.ok(msg and msg:find("a pinned entry is sha256:<64", 1, true), msg)
  _, msg = trust.read_list("L", "files=" .. F .. " /x\n")
  t.ok(msg, "a files pin without the config's hash is refused")
  t.eq(trust.rewrite(HASH .. " files=" .. F .. " /w\n/o\n", "/w"), "/o\n", "rewrite finds such an entry's directory")
end)

t.test("the files pin covers each named file's path and content, and whether it exists", function()
  local a, b = root .. "/pin-a.lua", root .. "/pin-b.lua"
  write(a, "return {}\n")
  write(b, "return {}\n")
  t.eq(trust.files_hash {}, nil, "no named file: no files pin")
  local h = trust.files_hash { a, b }
  t.eq(trust.files_hash { a, b }, h)
  t.ok(trust.files_hash { b, a } ~= h, "the order and the paths count")
  local entry = { files = h, line = 1, path = "/w" }
  t.eq(trust.files_problem(entry, { a, b }, "L"), nil)
  write(b, "add_dir '/'\nreturn {}\n")
  local why = trust.files_problem(entry, { a, b }, "L")
  t.ok(why and why:find("changed since you trusted it", 1, true), why)
  os.remove(b)
  t.ok(trust.files_problem(entry, { a, b }, "L"), "a named file that is gone no longer matches")
  why = trust.files_problem({ line = 1, path = "/w" }, { a }, "L")
  t.ok(why and why:find("does not pin", 1, true), "an entry pinning the config only trusts no named file: " .. tostring(why))
end)

t.test("rewrite replaces a directory's entries and their stamp, and keeps everything else", function()
  local text = "# mine\n/other\n" .. trust.STAMP .. "2026-01-01\n" .. HASH .. " /w\n/w/\n"
  t.eq(trust.rewrite(text, "/w", "NEW /w"), "# mine\n/other\nNEW /w\n")
  t.eq(trust.rewrite(text, "/w"), "# mine\n/other\n")
  t.eq(trust.rewrite("", "/w", "X /w"), "X /w\n")
  t.eq(trust.rewrite(HASH .. " /w\n", "/w"), "")
end)

t.test("the trust list reads absolute directories and skips comments", function()
  local e = assert(trust.read_list("L", "# trusted\n/a/b\n\n  /c//d/  # not a comment: part of the path?\n"))
  t.eq(e[1].path, "/a/b")
  t.eq(e[1].line, 2)
  t.eq(#e, 2)
end)

t.test("a relative trust-list entry is an error with file:line:col", function()
  local _, msg = trust.read_list("L", "/ok\n  rel/dir\n")
  t.ok(msg:find("^config_error: L:2:3: trusted directory must be an absolute path"), msg)
end)

t.test("without a flag or a list entry the workdir is not trusted, and the reason says how", function()
  os.remove(list)
  local d = assert(decide(root .. "/w"))
  t.eq(d.trusted, false)
  t.ok(d.reason:find("--trust-workdir-config", 1, true), d.reason)
  t.ok(d.reason:find("cordon trust " .. root .. "/w", 1, true), d.reason)
end)

t.test("the flag trusts the workdir for this run", function()
  local d = assert(decide(root .. "/w", { flag = true }))
  t.eq(d.trusted, true)
  t.eq(d.source, "flag")
end)

t.test("a trust-list entry equal to the canonical workdir trusts it", function()
  write(list, "# mine\n" .. HASH .. " " .. root .. "/w\n")
  sh("chmod 600 " .. q(list))
  local d = assert(decide(root .. "/w"))
  t.eq(d.trusted, true)
  t.eq(d.source, "trust-list")
  t.eq(d.entry.line, 2)
end)

t.test("an entry for a parent directory does not trust its children", function()
  write(list, root .. "\n")
  local d = assert(decide(root .. "/w"))
  t.eq(d.trusted, false)
end)

t.test("an entry reaching the workdir through a planted symlink does not match", function()
  -- The agent, able to write rw/, replaces a trusted name with a link to a directory it controls.
  sh("ln -s " .. q(root .. "/rw/other") .. " " .. q(root .. "/rw/trusted-name"))
  write(list, HASH .. " " .. root .. "/rw/trusted-name\n")
  local d = assert(decide(root .. "/rw/other"))
  t.eq(d.trusted, false)
  t.ok(d.reason:find("symbolic link", 1, true), d.reason)
end)

t.test("a listed workdir inside another writable root is not trusted from the list", function()
  write(list, HASH .. " " .. root .. "/rw/inner\n")
  local d = assert(decide(root .. "/rw/inner", { writable_roots = { root .. "/rw" } }))
  t.eq(d.trusted, false)
  t.ok(d.reason:find("inside the writable directory " .. root .. "/rw", 1, true), d.reason)
  d = assert(decide(root .. "/rw/inner", { writable_roots = { root .. "/rw/inner" } }))
  t.eq(d.trusted, true, "the workdir itself being writable is expected")
end)

t.test("a trust list writable by others is not used, and says why", function()
  write(list, HASH .. " " .. root .. "/w\n")
  sh("chmod 666 " .. q(list))
  local d = assert(decide(root .. "/w"))
  t.eq(d.trusted, false)
  t.ok(d.list.problem and d.list.problem:find("writable by group or others", 1, true), tostring(d.list.problem))
  t.ok(d.reason:find("unusable", 1, true), d.reason)
  sh("chmod 600 " .. q(list))
end)

t.test("a trust list in a directory writable by others is not used", function()
  sh("chmod 777 " .. q(cfg))
  local d = assert(decide(root .. "/w"))
  t.eq(d.trusted, false)
  sh("chmod 700 " .. q(cfg))
  t.eq(assert(decide(root .. "/w")).trusted, true)
end)

t.test("a trust list that is a symlink is not used", function()
  write(root .. "/elsewhere", HASH .. " " .. root .. "/w\n")
  os.remove(list)
  sh("ln -s " .. q(root .. "/elsewhere") .. " " .. q(list))
  local d = assert(decide(root .. "/w"))
  t.eq(d.trusted, false)
  t.ok(d.list.problem:find("symbolic link", 1, true), d.list.problem)
  os.remove(list)
end)

t.test("a malformed trust list is an error, so nothing is trusted by accident", function()
  write(list, "relative\n")
  sh("chmod 600 " .. q(list))
  local d, msg = decide(root .. "/w")
  t.eq(d, nil)
  t.ok(msg:find(list .. ":1:1:", 1, true), msg)
  os.remove(list)
end)

t.test("check_file reports a missing file as not found", function()
  local found, problem = trust.check_file(root .. "/missing")
  t.eq(found, false)
  t.eq(problem, nil)
end)

sh("rm -rf " .. q(root))
t.test("an entry with '..' is refused, never read as the directory it would pop to", function()
  local _, msg = trust.read_list("L", HASH .. " /safe/../evil\n")
  t.ok(msg and msg:find("L:1:1: trusted directory must not contain '..'", 1, true), msg)
  _, msg = trust.read_list("L", "/a/..\n")
  t.ok(msg and msg:find("must not contain '..'", 1, true), msg)
  t.ok(trust.read_list("L", HASH .. " /a/..b/c\n"), "a name that starts with two dots is a name")
end)

return t.finish()
