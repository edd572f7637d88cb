-- lua/cordon/manager.lua — cordon.manager: sandbox selection and command transformation.
return require "cordon.c.manager"
