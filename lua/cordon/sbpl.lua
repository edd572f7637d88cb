-- lua/cordon/sbpl.lua — cordon.sbpl: reading, deciding and linting (cordon.c.sbpl) plus writing and
-- quoting (cordon.c.writer), presented as one module.
local M = {}
for _, name in ipairs { "cordon.c.sbpl", "cordon.c.writer" } do
  for k, v in pairs(require(name)) do M[k] = v end
end
return M
