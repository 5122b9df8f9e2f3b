-- toolcheck's language server in Neovim 0.11 and later: put this in your init.lua (or
-- `dofile` it). For Neovim 0.7 to 0.10, use toolcheck-0.7.lua instead.
vim.lsp.config("toolcheck", {
  cmd = { "toolcheck", "server" },
  filetypes = { "json", "jsonl" },
  root_markers = { "toolcheck.toml", ".toolcheck.toml", "pyproject.toml", ".git" },
})
vim.lsp.enable("toolcheck")
