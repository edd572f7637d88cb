-- lua/cordon/standard.lua — the standard permission profiles and every list of what they protect, in one
-- place: the secrets, the minimal system paths, the protected names and paths, the write operations.
-- C keeps mechanism only: it receives these lists as data (src/lua/lstandard.c reads this module, as
-- embedded in the binary, for the C API's cordon_profile_standard, cordon_profile_new and ":minimal").
-- The session assessment, the Seatbelt section and the Linux compiler all read the same profile entries.
-- This file is plain data and functions over it: it requires nothing, so C can load it on its own.
local M = {}

M.NAMES = { "read-only", "workspace-write", "danger-full-access" }

-- Credentials an agent has no business reading unless an integration grants them (invariant 4): the
-- union of the tree's profiles/50-integrations-core/secrets-default-deny.sb (the user-visible list) and
-- GNOME's keyrings. Denied as subtrees: a subtree of a file is the file, and a directory that later
-- appears with that name stays covered.
M.secrets = {
  "~/.ssh",                             -- keys, known_hosts, agent sockets
  "~/.aws",                             -- AWS credentials and SSO caches
  "~/.gnupg",                           -- GPG private keys
  "~/.config/gcloud",                   -- Google Cloud tokens
  "~/.azure",                           -- Azure CLI tokens
  "~/.kube",                            -- Kubernetes cluster credentials
  "~/.docker/config.json",              -- registry auth
  "~/.netrc",                           -- passwords for curl, git, ftp
  "~/.password-store",                  -- pass(1)
  "~/.config/gh/hosts.yml",             -- GitHub CLI token
  "~/.git-credentials",                 -- git credential-store
  "~/.pypirc",                          -- PyPI upload tokens
  "~/.cargo/credentials.toml",          -- crates.io token
  "~/.vault-token",                     -- HashiCorp Vault
  "~/.terraform.d/credentials.tfrc.json", -- Terraform Cloud token
  "~/.config/op",                       -- 1Password CLI
  "~/.local/share/keyrings",            -- GNOME keyring
  "~/Library/Keychains",                -- macOS keychains
  -- the rest of the tree's list (secrets-default-deny.sb), in its order
  "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
  "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
  "/etc/ssh/ssh_host_dsa_key", "/etc/ssl/private", "/etc/pki/tls/private", "/etc/pki/CA/private",
  "/etc/letsencrypt", "/etc/NetworkManager/system-connections", "/etc/wpa_supplicant", "/etc/wireguard",
  "/etc/openvpn", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets", "/etc/ipsec.secrets", "/etc/ipsec.d/private",
  "/etc/krb5.keytab", "/etc/sssd", "/etc/ldap.secret", "/etc/postfix/sasl_passwd", "/etc/exim4/passwd.client",
  "/etc/mysql/debian.cnf", "/etc/apt/auth.conf", "/etc/apt/auth.conf.d", "/etc/containers/auth.json",
  "/etc/docker/key.json", "/etc/kubernetes", "/etc/rancher", "/etc/gitlab-runner",
  "/Library/Keychains/System.keychain",
  "~/.oci", "~/.config/doctl", "~/.fly",
  "~/.config/git/credentials", "~/.config/glab-cli/config.yml", "~/.config/hub", "~/.npmrc", "~/.yarnrc.yml",
  "~/.config/pip/pip.conf", "~/.pip/pip.conf",
  "~/.cargo/credentials", "~/.gem/credentials", "~/.m2/settings.xml", "~/.m2/settings-security.xml",
  "~/.gradle/gradle.properties", "~/.composer/auth.json", "~/.config/composer/auth.json", "~/.hex/hex.config",
  "~/.pgpass", "~/.my.cnf", "~/.bash_history", "~/.zsh_history", "~/.zsh_sessions",
  "~/.local/share/fish/fish_history", "~/.psql_history", "~/.mysql_history", "~/.python_history",
  "~/.node_repl_history",
}

-- What ":minimal" resolves to: binaries, libraries, system configuration, the dyld and framework trees
-- on macOS, and the few device nodes every runtime opens; each a subtree with the entry's access.
M.minimal = {
  "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec", "/usr/share", "/lib", "/lib64",
  "/etc", "/private/etc", "/System/Library", "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom",
}

-- Protected names: a segment with one of these names, at any depth below a writable root, is not
-- writable. ".git" counts whole in a bare profile; an assembled policy keeps only its hooks and config
-- (in_roots) so git itself can commit (FIELD-NOTES, Codex #7071). Not ".husky", ".vscode" or ".idea":
-- published packages carry them, and `npm install` would fail on every one that does.
M.names = { ".git", ".agents", ".codex", ".cordon", ".cordon.yaml" }

-- Every write operation by name: a deny must name the operation an earlier allow named, because a rule
-- on a specific operation is consulted before one on its wildcard parent (FIELD-NOTES, "Precedence").
M.WRITE_OPS = {
  "file-write*", "file-write-data", "file-write-create", "file-write-unlink", "file-write-mode",
  "file-write-owner", "file-write-setugid", "file-write-times", "file-write-xattr", "file-write-flags",
  "file-write-acl", "file-write-finderinfo",
}

-- Relative to every writable root (the workdir, each --add-dirs). A third field is a regex tail after
-- the path (the submodule repositories); the last is why. `platform` limits an entry to one target.
-- `project`: an editor's or agent's project file, which the Linux gate also keeps below the root's top
-- (protect.gate_names: in any directory that was there at launch, outside vendored directories).
-- The .git entries are Seatbelt's: on Linux the gate's git layout rules keep the hooks and config of
-- every git directory, at any depth, and let a config written inside change only git_safe_keys (so
-- `git config user.email`, `git remote add` and `git push -u` work); a deny here would beat them.
M.in_roots = {
  { "subpath", ".git/hooks", "git runs hooks on commit, checkout and merge, outside any sandbox", platform = "darwin" },
  { "literal", ".git/config", "core.hooksPath, core.fsmonitor, aliases and filter drivers run commands",
    platform = "darwin" },
  { "literal", ".git/config.worktree", "per-worktree git config: same powers as .git/config", platform = "darwin" },
  -- git never writes a main repository's commondir (only a linked worktree's, under .git/worktrees); a
  -- planted one borrows another repository's config and its relative hooksPath, on every platform.
  { "literal", ".git/commondir", "would move where git reads hooks and config from" },
  { "regex", ".git/modules", "/.+/(hooks(/|$)|config$|config\\.worktree$)", "hooks and config of submodule repositories",
    platform = "darwin" },
  { "regex", ".git/worktrees", "/[^/]+/config\\.worktree$", "per-worktree config of linked worktrees",
    platform = "darwin" },
  { "literal", ".envrc", "direnv evaluates it in the user's shell on cd" },
  { "literal", ".cordon.yaml", "cordon's workdir config: once trusted, an edit would widen the next policy" },
  { "subpath", ".cordon", "cordon's per-workdir state" },
  { "literal", ".vscode/tasks.json", "VS Code runs tasks (some automatically on folder open)" , project = true },
  { "literal", ".vscode/launch.json", "VS Code debug launch commands" , project = true },
  { "literal", ".vscode/settings.json", "workspace settings can point tools and terminals at executables" , project = true },
  { "subpath", ".idea/runConfigurations", "JetBrains run configurations execute commands" , project = true },
  { "literal", ".idea/workspace.xml", "JetBrains workspace file holds run configurations too" , project = true },
  -- Agents' project settings: hooks and MCP servers are commands the agent runs at its next start here.
  { "literal", ".claude/settings.json", "Claude Code runs the hooks this file sets (SessionStart, PreToolUse, …)" , project = true },
  { "literal", ".claude/settings.local.json", "Claude Code's local settings: the same hooks" , project = true },
  { "subpath", ".claude/hooks", "scripts Claude Code's hooks run" , project = true },
  { "literal", ".mcp.json", "MCP servers are commands the agent starts" , project = true },
  { "literal", ".gemini/settings.json", "Gemini CLI's settings start MCP servers" , project = true },
  { "literal", ".cursor/mcp.json", "Cursor starts the MCP servers this file lists" , project = true },
  { "literal", ".vscode/mcp.json", "VS Code starts the MCP servers this file lists" , project = true },
  { "literal", "opencode.json", "opencode starts MCP servers and runs commands this file lists" , project = true },
  { "literal", "opencode.jsonc", "opencode's config (jsonc)" , project = true },
  { "subpath", ".opencode", "opencode's project plugins and commands" , project = true },
  -- Files a toolchain reads on every command, searching upward from where it runs, that name a program
  -- to run: the host's next `cargo --version` or `yarn`, or an editor opening the folder, runs it.
  { "literal", "rust-toolchain.toml", "rustup runs the toolchain its `path` names for every cargo and rustc",
    project = true },
  { "literal", "rust-toolchain", "rustup's toolchain file (older name): the same `path`", project = true },
  { "literal", ".cargo/config.toml", "cargo runs its rustc-wrapper, runner, linker and aliases (cargo metadata too)",
    project = true },
  { "literal", ".cargo/config", "cargo's config (older name): the same programs", project = true },
  { "literal", ".yarnrc.yml", "yarn runs the script its yarnPath names on every yarn command", project = true },
  { "literal", ".tool-versions", "asdf and mise take `path:` versions from it: a directory of programs", project = true },
  { "literal", "mise.toml", "mise's config: tools by path, tasks and hooks", project = true },
  { "literal", ".mise.toml", "mise's config (hidden name)", project = true },
}

-- Start-up and login files under HOME: a shell, an editor or the login session runs what they say.
-- Assembled policies keep them read-only through the tree (guard.lua, protect.home_exclusion); the
-- permission profiles carry them as "~/" protected entries, so a session never approves a write on one
-- and a Linux compile from a bare profile keeps them read-only where a writable root holds HOME.
M.in_home = {
  { "literal", ".bashrc" }, { "literal", ".bash_profile" }, { "literal", ".bash_login" },
  { "literal", ".bash_logout" }, { "literal", ".profile" }, { "literal", ".zshrc" }, { "literal", ".zshenv" },
  { "literal", ".zprofile" }, { "literal", ".zlogin" }, { "literal", ".zlogout" }, { "literal", ".kshrc" },
  { "literal", ".cshrc" }, { "literal", ".tcshrc" }, { "literal", ".inputrc" }, { "literal", ".envrc" },
  { "subpath", ".config/fish" }, { "literal", ".gitconfig" }, { "literal", ".config/git/config" },
  { "literal", ".ssh/authorized_keys" }, { "literal", ".ssh/rc" }, { "literal", ".ssh/config" },
  { "subpath", "Library/LaunchAgents" }, { "subpath", ".config/autostart" }, { "subpath", ".config/systemd/user" },
}

-- Names that tools search for upward from where they run, kept read-only at HOME's top too: what HOME
-- holds read-only (editor extensions, ~/.nvm's and ~/.local's global packages, the agent CLI itself)
-- reaches ~/node_modules, ~/rust-toolchain.toml or ~/Gemfile when it looks for one of its own, so with
-- HOME in a writable root these are start-up files in all but name (docs/findings 16;
-- protect.host_run_paths keeps them, whether or not they exist).
M.upward_names = {
  { "subpath", "node_modules" }, { "literal", "package.json" }, { "literal", "pnpm-workspace.yaml" },
  { "literal", "tsconfig.json" }, { "literal", "jsconfig.json" }, { "literal", "deno.json" },
  { "literal", "deno.jsonc" }, { "literal", "eslint.config.js" }, { "literal", "eslint.config.mjs" },
  { "literal", "eslint.config.cjs" }, { "literal", "prettier.config.js" }, { "literal", "prettier.config.mjs" },
  { "literal", "rust-toolchain" }, { "literal", "rust-toolchain.toml" }, { "literal", "Cargo.toml" },
  { "literal", "go.work" }, { "literal", "go.work.sum" }, { "literal", "go.mod" }, { "literal", "mise.toml" },
  { "literal", "pyproject.toml" }, { "literal", "conftest.py" }, { "literal", "pytest.ini" },
  { "literal", "tox.ini" }, { "literal", "setup.cfg" }, { "literal", "Pipfile" }, { "literal", "Gemfile" },
  { "literal", "gems.rb" }, { "literal", "Rakefile" }, { "literal", "justfile" }, { "literal", "Justfile" },
  { "literal", "flake.nix" }, { "literal", "MODULE.bazel" }, { "literal", "WORKSPACE" },
  { "literal", "WORKSPACE.bazel" }, { "literal", "settings.gradle" }, { "literal", "settings.gradle.kts" },
}


-- Start-up files and directories under HOME that dotfile managers (GNU stow, chezmoi's symlink mode,
-- yadm, hand-made links) keep as symbolic links: when one links into a writable root, its target stays
-- read-only (protect.host_run_paths), since a write there is a write to the start-up file. Checked by
-- name (besides in_home), not by listing HOME, whose listing changes with every tool's scratch file.
M.home_links = {
  ".vimrc", ".vim", ".gvimrc", ".config/nvim", ".tmux.conf", ".config/tmux", ".screenrc", ".emacs", ".emacs.d",
  ".config/emacs", ".config/doom", ".xprofile", ".xinitrc", ".xsession", ".Xresources", ".pam_environment",
  ".config/environment.d", ".config/helix", ".config/zed", ".config/kitty", ".config/alacritty",
  ".config/wezterm", ".wezterm.lua", ".config/starship.toml", ".oh-my-zsh", ".zsh", ".bashrc.d", ".aliases",
  ".functions", ".exports", ".config/direnv", ".config/mise", ".tool-versions", ".npmrc", ".config/git",
}

-- A profile's protected entries: the names, then "/REL" for each path of in_roots (a regex entry is
-- already inside the protected name .git), then "~/REL" for each of in_home.
function M.protected()
  local out = {}
  for _, n in ipairs(M.names) do out[#out + 1] = n end
  for _, e in ipairs(M.in_roots) do if e[1] ~= "regex" then out[#out + 1] = "/" .. e[2] end end
  for _, e in ipairs(M.in_home) do out[#out + 1] = "~/" .. e[2] end
  return out
end

-- The standard profiles as data, one per name: the filesystem kind, the grants (a special and its
-- access, each a subtree) and the network; a restricted filesystem also denies every secret. C builds
-- them from this (src/core/profile_std.c, cordon.profile.standard).
M.shapes = {
  ["read-only"] = { filesystem = "restricted", network = "restricted", grants = { { ":root", "read" } } },
  ["workspace-write"] = {
    filesystem = "restricted", network = "restricted",
    grants = { { ":root", "read" }, { ":workspace_roots", "write" }, { ":tmpdir", "write" }, { ":slash_tmp", "write" } },
  },
  ["danger-full-access"] = { filesystem = "unrestricted", network = "enabled", grants = {} },
}

return M
