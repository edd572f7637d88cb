-- tests/lua/test_path.lua — cordon.path: bad paths are failures (nil, msg, code), misuse raises.
local t = require "harness"
local path = require("cordon").path

t.test("normalize collapses slashes and dots and drops a trailing slash", function()
  t.eq(path.normalize("//a/./b//"), "/a/b")
  t.eq(path.normalize("/"), "/")
end)

t.test("normalize returns typed failures for relative, dotdot, control bytes and empty", function()
  t.fails("relative", path.normalize("a/b"))
  t.fails("dotdot", path.normalize("/a/../b"))
  t.fails("control_char", path.normalize("/a\nb"))
  t.fails("control_char", path.normalize("/a\0b"))
  t.fails("empty", path.normalize(""))
  local msg = t.fails("too_long", path.normalize("/" .. string.rep("x", path.MAX)))
  t.ok(msg:find("cannot normalize"), "message says what failed")
end)

t.test("a non-string argument is misuse and raises", function()
  t.ok(not pcall(path.normalize, {}), "table raises")
  t.ok(not pcall(path.within, "/a"), "missing argument raises")
end)

t.test("within respects segment boundaries", function()
  t.eq(path.within("/repo", "/repo/a"), true)
  t.eq(path.within("/repo", "/repo2"), false)
  t.eq(path.within("/repo/", "/repo"), true)
  t.eq(path.within("/repo", "relative"), false)
end)

t.test("parent and ancestors walk up to the root", function()
  t.eq(path.parent("/a/b"), "/a")
  t.eq(path.parent("/"), nil)
  t.same(path.ancestors("/Users/alice/app"), { "/", "/Users", "/Users/alice" })
  t.same(path.ancestors("/"), {})
end)

t.test("expand_home expands ~ against the given home only", function()
  t.eq(path.expand_home("~/.ssh", "/home/u"), "/home/u/.ssh")
  t.eq(path.expand_home("/abs", "/home/u"), "/abs")
  t.fails("tilde_user", path.expand_home("~bob/x", "/home/u"))
end)

t.test("canonicalize keeps the part that does not exist yet", function()
  local root = path.canonicalize("/")
  t.eq(root, "/")
  t.eq(path.canonicalize("/no-such-dir-cordon/a/b"), "/no-such-dir-cordon/a/b")
end)

t.test("join refuses absolute and dotdot parts", function()
  t.eq(path.join("/w", "src/a.c"), "/w/src/a.c")
  t.fails("invalid_request", path.join("/w", "/etc"))
  t.fails("dotdot", path.join("/w", "../etc"))
end)

t.test("the walking functions take any absolute path a file may have, control bytes included", function()
  t.eq(path.within("/w", "/w/a\nb"), true, "a file name with a newline is still inside /w")
  t.eq(path.within("/w/a\nb", "/w/a\nb/c"), true)
  t.eq(path.within("/w", "/w/../etc"), false, "'..' is never within")
  t.eq(path.parent("/w/a\nb/c"), "/w/a\nb")
  t.same(path.ancestors("/w/a\tb/c"), { "/", "/w", "/w/a\tb" })
  t.fails("relative", path.parent("a/b"))
  t.fails("control_char", path.normalize("/w/a\nb"))  -- normalize, which writes policies, still refuses them
end)

t.test("join_lexical resolves '..' as text, as git reads a relative gitdir", function()
  t.eq(path.join_lexical("/w/.git/worktrees/x", "../.."), "/w/.git")
  t.eq(path.join_lexical("/w", "/abs/./p"), "/abs/p", "an absolute rel stands alone")
  t.eq(path.join_lexical("/", "../../x"), "/x", "'..' at the root stays at the root")
  t.eq(path.join_lexical("/w", ""), "/w")
  t.fails("relative", path.join_lexical("w", "x"))
  t.fails("too_long", path.join_lexical("/w", string.rep("a", 5000)))
end)

t.test("search lists where exec looks for a bare name", function()
  t.same(path.search("git", "/opt/bin::/usr/bin"), { "/opt/bin/git", "./git", "/usr/bin/git" })
  t.same(path.search("git"), { "/usr/local/bin/git", "/usr/bin/git", "/bin/git" }, "the default PATH")
  t.same(path.search("git", ""), { "./git" })
  t.fails("invalid_request", path.search("bin/git", "/usr"))
  t.fails("invalid_request", path.search("", "/usr"))
end)

return t.finish()
