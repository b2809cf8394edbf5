//! One real editor end to end: Debian's Neovim, headless, with its built-in LSP client
//! starting `keel lsp` on a built fixture repository, an unsaved edit inside a pinned
//! function, `vim.diagnostic.get()` read back, and a definition jump from the spec's
//! entry to the function. `.ci/run` installs Neovim; without `nvim` on PATH the test says
//! it skipped.
//!
//! Owns: that an editor's own client (not keel's scripted one) gets the diagnostics and
//! the jump. Does not own: the protocol exchange in detail (`lsp`).

use crate::support::{APP_PY, on_path, spec};
use keel_fixtures::FixtureRepo;
use std::process::Command;

/// The Lua the editor runs (Neovim 0.7's API: `vim.lsp.start_client`), writing what it
/// saw to `$OUT`: one `diagnostic LINE SEVERITY CODE` line each, then `jumped FILE LINE`.
const SCRIPT: &str = r#"
local out = io.open(os.getenv("OUT"), "w")
local root = os.getenv("REPO")
local client = vim.lsp.start_client({ name = "keel", cmd = { os.getenv("KEEL_BIN"), "lsp" }, root_dir = root })
vim.cmd("edit " .. root .. "/app.py")
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client)
vim.wait(30000, function()
  local c = vim.lsp.get_client_by_id(client)
  return c ~= nil and c.initialized
end, 20)
vim.api.nvim_buf_set_lines(buf, 1, 2, false, { "    y = x + 40" })
vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
for _, d in ipairs(vim.diagnostic.get(buf)) do
  out:write(string.format("diagnostic %d %d %s\n", d.lnum, d.severity, d.code or ""))
end
vim.cmd("edit " .. root .. "/.spec/app/spec.md")
local spec = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(spec, client)
vim.api.nvim_win_set_cursor(0, { 3, 12 })
local params = vim.lsp.util.make_position_params()
for _, response in pairs(vim.lsp.buf_request_sync(spec, "textDocument/definition", params, 30000) or {}) do
  if response.result then
    vim.lsp.util.jump_to_location(response.result, "utf-16")
  end
end
local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t")
out:write(string.format("jumped %s %d\n", name, vim.api.nvim_win_get_cursor(0)[1]))
out:close()
vim.cmd("qa!")
"#;

#[test]
fn neovim_shows_the_unsaved_hit_and_jumps_from_the_spec_entry_to_the_unit() {
    let Some(nvim) = on_path("nvim") else {
        eprintln!("skipped: no `nvim` on PATH (.ci/run installs Debian's neovim)");
        return;
    };
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    repo.write("app.py", APP_PY)
        .and_then(|r| r.write(".spec/app/spec.md", &spec(&["app.py#f"])))
        .expect("write");
    repo.commit("Add app and its spec").expect("commit");
    let home = tempfile::tempdir().expect("a temporary folder");
    let script = home.path().join("keel.lua");
    std::fs::write(&script, SCRIPT).expect("write the script");
    let out = home.path().join("seen.txt");
    let root = repo.path().canonicalize().expect("a real path");

    let ran = Command::new(nvim)
        .args(["--headless", "--clean", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .env("XDG_STATE_HOME", home.path())
        .env("KEEL_BIN", env!("CARGO_BIN_EXE_keel"))
        .env("REPO", &root)
        .env("OUT", &out)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("nvim runs");
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(
        ran.status.success(),
        "nvim: {}\n{seen}",
        String::from_utf8_lossy(&ran.stderr)
    );
    // The edit is on line 2, inside `f` (lines 1-3): one error (severity 1) from line 0.
    assert_eq!(
        seen,
        "diagnostic 0 1 anchor-hit\njumped app.py 1\n",
        "stderr: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
}
