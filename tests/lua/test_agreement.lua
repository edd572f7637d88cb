-- tests/lua/test_agreement.lua — property test (issue 4, item 8): for random permission profiles and
-- random paths, the Seatbelt policy the backend emits for a profile, read back and decided for
-- file-read-data / file-write-data, agrees with the profile's own matchers can_read / can_write.
-- Any disagreement is a bug in the writer, the reader, the decision evaluator or the matchers; the
-- failure message gives the seed, the profile, the path and the rule that decided, to reproduce it.
-- Seed: CORDON_AGREEMENT_SEED (default fixed), profiles: CORDON_AGREEMENT_PROFILES (default 150).
local t = require "harness"
local cordon = require "cordon"

local SEED = tonumber(os.getenv("CORDON_AGREEMENT_SEED") or "") or 20261130
local PROFILES = tonumber(os.getenv("CORDON_AGREEMENT_PROFILES") or "") or 150
local PATHS = 60

-- Paths live under roots the base runtime rules never mention, so only the profile decides them.
local ROOTS = { "/r", "/s", "/q" }
local SEGMENTS = { "a", "b", "ab", "a.b", ".git", "config", "x y", "hooks", ".codex" }
local CTX = { cwd = "/r/w", workspace_roots = { "/r/w" }, tmpdir = "/q/tmp", home = "/s/home" }

local rng = {}
do -- a small LCG so the sequence is the same on every Lua build
  local state = SEED
  function rng.int(n)
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n + 1
  end
  function rng.pick(list) return list[rng.int(#list)] end
end

local function random_path()
  local parts = { rng.pick(ROOTS) }
  for _ = 1, rng.int(4) - 1 do parts[#parts + 1] = rng.pick(SEGMENTS) end
  return table.concat(parts, "/")
end

local function random_profile()
  local entries = {}
  for _ = 1, rng.int(6) do
    local e = { access = rng.pick { "read", "write", "deny", "read", "write" }, match = rng.pick { "exact", "subtree" } }
    if rng.int(5) == 1 then e.special = rng.pick { ":workspace_roots", ":tmpdir", ":workspace_roots", ":tmpdir", ":root" } else e.path = random_path() end
    entries[#entries + 1] = e
  end
  local protected = {}
  if rng.int(2) == 1 then protected = { ".git", ".codex" } end
  if rng.int(8) == 1 then  -- an unrestricted filesystem takes no entries
    return { kind = "managed", network = "restricted", filesystem = { kind = "unrestricted", protected_metadata = protected } }
  end
  return { kind = "managed", network = "restricted",
           filesystem = { kind = "restricted", entries = entries, protected_metadata = protected } }
end

local function describe(x, indent)
  if type(x) ~= "table" then return string.format("%q", tostring(x)) end
  local parts = {}
  for k, v in pairs(x) do
    parts[#parts + 1] = (type(k) == "number" and "" or (tostring(k) .. " = ")) .. describe(v)
  end
  return "{ " .. table.concat(parts, ", ") .. " }"
end

t.test("the emitted Seatbelt policy agrees with can_read and can_write", function()
  local manager = require "cordon.c.manager"
  local checked, disagreements = 0, {}
  for n = 1, PROFILES do
    local tbl = random_profile()
    local prof = assert(cordon.profile.new(tbl))
    local text, params = manager.seatbelt_policy(prof, CTX, { base = true })
    assert(text, "seatbelt_policy failed (seed " .. SEED .. ", profile " .. n .. "): " .. tostring(params)
      .. "\nprofile: " .. describe(tbl))
    local policy, err = cordon.sbpl.parse(text, "emitted.sb", params)
    assert(policy, "the emitted policy does not read back (seed " .. SEED .. ", profile " .. n .. "): "
      .. tostring(err) .. "\nprofile: " .. describe(tbl))
    for _ = 1, PATHS do
      local path = random_path()
      for _, q in ipairs { { "file-read-data", "can_read" }, { "file-write-data", "can_write" } } do
        local action, rule = policy:decide(q[1], path)
        local want = prof[q[2]](prof, path, CTX)
        checked = checked + 1
        if (action == "allow") ~= (want == true) and #disagreements < 5 then
          local why = rule and rule.source and (rule.source .. " " .. tostring(rule.text))
            or ("fallback " .. table.concat(rule or {}, " -> "))
          disagreements[#disagreements + 1] = string.format(
            "seed %d, profile %d: %s %s: policy says %s (%s), profile:%s says %s\n  profile: %s",
            SEED, n, q[1], path, action, why, q[2], tostring(want), describe(tbl))
        end
      end
    end
    policy:close()
  end
  t.ok(checked > 0, "some queries ran")
  if #disagreements > 0 then error("disagreements:\n" .. table.concat(disagreements, "\n")) end
end)

return t.finish()
