-- lua/cordon/init.lua — require "cordon": the public Lua API.
-- C submodules (cordon.c.*) hold primitives; the Lua modules beside this file hold policy logic.
-- Submodules load on first use, so a command pays only for what it touches.
local M = { version = "0.1.0" }

local lazy = {
  path = "cordon.c.path",
  profile = "cordon.profile",
  boundary = "cordon.boundary",
  sbpl = "cordon.sbpl",
  manager = "cordon.manager",
  linux = "cordon.c.linux",
  sys = "cordon.c.sys",
  legacy = "cordon.legacy",
  session = "cordon.session",
  yaml = "cordon.c.yaml",
  sandbox = "cordon.c.sandbox",
  json = "cordon.c.json",
}
-- A build without the Linux backend (-DCORDON_WITH_LINUX=OFF) has no cordon.c.linux: no cordon.linux either.
if not package.preload["cordon.c.linux"] and not package.loaded["cordon.c.linux"] then lazy.linux = nil end

-- Entry points that are functions of a Lua module: cordon.compile_legacy(mode, opts) and so on.
local entry = {
  compile_legacy = { "cordon.legacy", "compile" },
  select = { "cordon.select", "select" },
  assemble = { "cordon.assemble", "assemble" },
  explain = { "cordon.explain", "explain" },
}

local function load(t, k)
  local name = lazy[k]
  if name then
    local mod = require(name)
    rawset(t, k, mod)
    return mod
  end
  local e = entry[k]
  if e then
    local fn = require(e[1])[e[2]]
    rawset(t, k, fn)
    return fn
  end
end

-- pairs(cordon) names every submodule and entry point, loading each as it comes (the REPL shows them
-- all, and Tab completes them, before anything has touched them).
local function every(t)
  local names = {}
  for k in next, t do names[#names + 1] = k end
  for k in pairs(lazy) do if rawget(t, k) == nil then names[#names + 1] = k end end
  for k in pairs(entry) do if rawget(t, k) == nil then names[#names + 1] = k end end
  table.sort(names)
  local i = 0
  return function()
    i = i + 1
    local k = names[i]
    if k ~= nil then return k, t[k] end
  end, t, nil
end

setmetatable(M, {
  __name = "cordon",
  __pairs = every,
  __index = load,
})

return M
