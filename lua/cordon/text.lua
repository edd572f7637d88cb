-- lua/cordon/text.lua — string helpers whose cost stays linear in the input, whatever it holds: cordon
-- reads text written inside a sandbox (git config values, gitfiles), where a pattern like
-- "^%s*(.-)%s*$" takes quadratic time on a long run of spaces and could stall the next run.
local M = {}

-- `s` without leading and trailing white space.
function M.trim(s) return (s:gsub("^%s+", "")):match("^(.*%S)") or "" end

return M
