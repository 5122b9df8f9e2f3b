-- Headless check of a configuration (scripts/check-neovim.sh): open $TOOLCHECK_FILE, wait
-- for toolcheck's diagnostics, print them, and exit 0 when there are some.
vim.cmd("edit " .. vim.fn.fnameescape(vim.env.TOOLCHECK_FILE))
local found = vim.wait(20000, function()
  return #vim.diagnostic.get(0) > 0
end, 100)
for _, d in ipairs(vim.diagnostic.get(0)) do
  io.stdout:write(string.format("%d:%d %s %s\n", d.lnum + 1, d.col + 1, tostring(d.code), d.message))
end
vim.cmd(found and "qa!" or "cq!")
