-- real-code-checks.lua - assertions for bench/plugin/real-code.sh: Debian's
-- lua5.4 source package has no test suite. One 'ok N name' or
-- 'not ok N name: error' line a check; deterministic output.
local n = 0
local function check(name, f)
  n = n + 1
  local ok, err = pcall(f)
  if ok then print(("ok %d %s"):format(n, name))
  else print(("not ok %d %s: %s"):format(n, name, tostring(err))) end
end

check("string.format", function()
  assert(("%5.2f|%d|%x|%q"):format(3.14159, 42, 255, "a\nb") == ' 3.14|42|ff|"a\\\nb"')
  assert(("%g"):format(1e308 * 10) == "inf")
end)
check("patterns", function()
  assert(("hello world from lua"):gsub("(%w+)", "<%1>") == "<hello> <world> <from> <lua>")
  local k, v = ("key = value"):match("^(%w+)%s*=%s*(%w+)$")
  assert(k == "key" and v == "value")
  local t = {}
  for w in ("a,b,,c"):gmatch("([^,]*)") do t[#t + 1] = w end
  assert(table.concat(t, "|") == "a|b||c")
  assert(("%bxy"):len() == 4 and ("(foo(bar))baz"):match("%b()") == "(foo(bar))")
end)
check("tables and sort", function()
  local t = {}
  for i = 1, 1000 do t[i] = (i * 7919) % 1009 end
  table.sort(t)
  for i = 2, #t do assert(t[i - 1] <= t[i]) end
  table.sort(t, function(a, b) return a > b end)
  assert(t[1] == 1008 and #t == 1000)
  assert(table.concat(table.move({1, 2, 3}, 1, 3, 2, {0}), ",") == "0,1,2,3")
  assert(select("#", table.unpack({1, nil, 3}, 1, 3)) == 3)
end)
check("integers and floats", function()
  assert(math.maxinteger + 1 == math.mininteger)
  assert(7 // 2 == 3 and -7 // 2 == -4 and 7 % -3 == -2 and 7.0 // 2 == 3.0)
  assert(math.type(1) == "integer" and math.type(1.0) == "float")
  assert(1 << 62 == 4611686018427387904 and (0xff ~ 0x0f) == 0xf0)
  assert(math.tointeger(3.0) == 3 and math.ult(1, -1))
  assert(tostring(2^53) == "9.007199254741e+15" and string.format("%.17g", 0.1) == "0.10000000000000001")
  assert(math.floor(-3.5) == -4 and math.fmod(-7, 3) == -1 and math.abs(math.mininteger) == math.mininteger)
end)
check("closures and upvalues", function()
  local fs = {}
  for i = 1, 10 do fs[i] = function() return i * i end end
  local s = 0
  for _, f in ipairs(fs) do s = s + f() end
  assert(s == 385)
  local function counter() local c = 0 return function() c = c + 1 return c end end
  local c1, c2 = counter(), counter()
  c1(); c1()
  assert(c1() == 3 and c2() == 1)
end)
check("coroutines", function()
  local gen = coroutine.wrap(function() for i = 1, 5 do coroutine.yield(i) end return "done" end)
  local out = {}
  for _ = 1, 6 do out[#out + 1] = gen() end
  assert(table.concat(out, ",") == "1,2,3,4,5,done")
  local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) error("x" .. b) end)
  local ok, v = coroutine.resume(co, 1)
  assert(ok and v == 2)
  ok, v = coroutine.resume(co, 5)
  assert(not ok and v:find("x5"))
  assert(coroutine.status(co) == "dead" and coroutine.close(co) == false)
end)
check("metatables", function()
  local V = {}
  V.__index = V
  V.__add = function(a, b) return setmetatable({x = a.x + b.x}, V) end
  V.__eq = function(a, b) return a.x == b.x end
  V.__lt = function(a, b) return a.x < b.x end
  V.__len = function(a) return a.x end
  V.__tostring = function(a) return "V(" .. a.x .. ")" end
  V.__close = function() end
  local a, b = setmetatable({x = 1}, V), setmetatable({x = 2}, V)
  assert(tostring(a + b) == "V(3)" and a + b == setmetatable({x = 3}, V) and a < b and #b == 2)
  local log = {}
  do local _ <close> = setmetatable({}, {__close = function() log[#log + 1] = "closed" end}) end
  assert(log[1] == "closed")
  local weak = setmetatable({}, {__mode = "k"})
  weak[{}] = true
  collectgarbage(); collectgarbage()
  assert(next(weak) == nil)
end)
check("utf8", function()
  local s = "héllo wörld €"
  assert(utf8.len(s) == 13 and utf8.char(8364) == "€")
  local cps = {}
  for _, c in utf8.codes("aé€") do cps[#cps + 1] = c end
  assert(table.concat(cps, ",") == "97,233,8364" and utf8.offset(s, 3) == 4)
end)
check("string.pack", function()
  local p = string.pack("<i4 >I2 z d s1", -2, 513, "zs", 1.5, "abc")
  assert(#p == 4 + 2 + 3 + 8 + 4)
  local a, b, c, d, e = string.unpack("<i4 >I2 z d s1", p)
  assert(a == -2 and b == 513 and c == "zs" and d == 1.5 and e == "abc")
  assert(string.packsize("i8 i1 !8 i8") == 24)
end)
check("errors and goto", function()
  local ok, e = pcall(error, {code = 7})
  assert(not ok and e.code == 7)
  ok, e = xpcall(function() local x = nil; return x.y end, function(m) return "h:" .. m end)
  assert(not ok and e:find("^h:"))
  local i = 0
  ::top:: i = i + 1
  if i < 10 then goto top end
  assert(i == 10)
  assert(select(2, load("return +")) ~= nil and load("return 1 + 2")() == 3)
end)
check("io and os", function()
  local name = os.tmpname()
  local f = assert(io.open(name, "w"))
  for i = 1, 100 do f:write(i, "\n") end
  f:close()
  local sum = 0
  for line in io.lines(name) do sum = sum + tonumber(line) end
  assert(sum == 5050)
  f = assert(io.open(name, "rb"))
  assert(f:seek("end") == 292)
  f:close()
  assert(os.remove(name))
  assert(os.time({year = 2000, month = 1, day = 1, hour = 12}) > 0 and os.date("!%Y-%m-%d", 0) == "1970-01-01")
end)
check("garbage collector", function()
  local t = {}
  for i = 1, 200000 do t[i] = {i} end
  local before = collectgarbage("count")
  t = nil
  collectgarbage(); collectgarbage()
  assert(collectgarbage("count") < before / 2)
  collectgarbage("generational"); collectgarbage("incremental")
  local s = {}
  for i = 1, 10000 do s[#s + 1] = tostring(i):rep(3) end
  assert(#table.concat(s) == 3 * (9 + 90 * 2 + 900 * 3 + 9000 * 4 + 5))
end)
check("string library", function()
  assert(("abc"):rep(3, "-") == "abc-abc-abc" and ("Hello"):upper() == "HELLO" and ("abc"):reverse() == "cba")
  assert(("x"):byte() == 120 and string.char(72, 105) == "Hi" and ("hello"):sub(-3) == "llo")
  assert(("%d items"):format(3) == "3 items" and tostring(nil) == "nil" and tonumber("0x10") == 16 and tonumber("z", 36) == 35)
end)
check("a small interpreter workload", function()
  -- Sieve, Fibonacci with memo, a string builder: a deterministic sum.
  local N, sieve, primes = 100000, {}, 0
  for i = 2, N do
    if not sieve[i] then primes = primes + 1; for j = i * i, N, i do sieve[j] = true end end
  end
  local memo = {}
  local function fib(k) if k < 2 then return k end; if memo[k] then return memo[k] end
    local v = fib(k - 1) + fib(k - 2); memo[k] = v; return v end
  assert(primes == 9592 and fib(90) == 2880067194370816120)
end)
print(("%d checks"):format(n))
