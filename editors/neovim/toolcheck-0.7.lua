-- toolcheck's language server in Neovim 0.7 to 0.10 (Debian 12 packages 0.7), which have
-- neither `vim.lsp.config` nor `vim.lsp.enable`: one client, started for the first JSON or
-- JSONL buffer and attached to each one opened after it.
vim.filetype.add({ extension = { jsonl = "jsonl", ndjson = "jsonl" } })

local client_id = nil

vim.api.nvim_create_autocmd("FileType", {
  pattern = { "json", "jsonl" },
  callback = function(args)
    if client_id == nil or vim.lsp.get_client_by_id(client_id) == nil then
      local markers = { "toolcheck.toml", ".toolcheck.toml", "pyproject.toml", ".git" }
      local found = vim.fs and vim.fs.find and vim.fs.find(markers, {
        upward = true,
        path = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h"),
      })[1]
      client_id = vim.lsp.start_client({
        name = "toolcheck",
        cmd = { "toolcheck", "server" },
        root_dir = found and vim.fn.fnamemodify(found, ":h") or vim.fn.getcwd(),
      })
    end
    if client_id ~= nil then
      vim.lsp.buf_attach_client(args.buf, client_id)
    end
  end,
})
