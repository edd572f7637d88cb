-- lua/cordon/profile.lua — cordon.profile: permission profiles (C matchers, see src/core/profile.h).
return require "cordon.c.profile"
