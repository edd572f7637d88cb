-- lua/cordon/sbpl_facts.lua — what a fact about the acting process is when a query does not state it
-- (docs/sbpl-semantics.md §5). Seatbelt decides these from the process and the machine, which a check
-- off the Mac cannot see; the defaults describe the usual case: a third-party program on a customer
-- Mac. A query overrides any of them with --fact NAME=VALUE (or a facts table in policy:decide).
local M = {}

-- "" states the fact with no value: the filter on it does not match.
M.defaults = {
  ["system-attribute"] = "",   -- apple-internal, developer-mode, sandbox-debug-mode: none (a customer Mac)
  ["entitlement"] = "",        -- require-entitlement, entitlement-is-present: the program holds none
  ["entitlement-value"] = "",
  ["process-attribute"] = "",  -- is-platform-binary, is-plugin, is-installer: none (not an Apple binary)
  ["file-attribute"] = "",     -- datavault, sip-protected: none
}

-- Returns a copy of `facts` (a policy:decide facts table) with every default it does not state, and the
-- sorted list of the names it filled.
function M.with_defaults(facts)
  local out, filled = {}, {}
  for k, v in pairs(facts or {}) do out[k] = v end
  for name, value in pairs(M.defaults) do
    if out[name] == nil then
      out[name] = value
      filled[#filled + 1] = name
    end
  end
  table.sort(filled)
  return out, filled
end

return M
