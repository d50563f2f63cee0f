# A JSON Schema subset in jq: type, required, properties,
# additionalProperties: false, items, enum, const, minimum.
# errors($schema; $path) emits one message per violation of the input.

def type_name:
  if type == "number" and . == floor then "integer" else type end;

def type_ok($want):
  type_name as $t
  | ($want | if type == "array" then . else [.] end)
  | any(. == $t or (. == "number" and $t == "integer"));

def errors($s; $path):
  . as $v
  | if ($s | has("type")) and ($v | type_ok($s.type) | not) then
      "\($path): \($v | type_name), expected \($s.type)"
    else
      (if ($s | has("const")) and $v != $s.const then "\($path): \($v | tojson), expected \($s.const | tojson)" else empty end),
      (if ($s | has("enum")) and ($s.enum | index([$v]) | not) then "\($path): \($v | tojson) is not one of \($s.enum | tojson)" else empty end),
      (if ($s | has("minimum")) and ($v | type) == "number" and $v < $s.minimum then "\($path): \($v) < \($s.minimum)" else empty end),
      (if ($v | type) == "object" then
         (($s.required // [])[] | select(. as $k | $v | has($k) | not) | "\($path): \(.) is missing"),
         (if $s.additionalProperties == false then
            ($v | keys[]) | select(. as $k | $s.properties | has($k) | not) | "\($path): \(.) is not in the schema"
          else empty end),
         (($s.properties // {}) | to_entries[] | select(.key as $k | $v | has($k))
           | .key as $k | .value as $ps | $v[$k] | errors($ps; "\($path).\($k)"))
       else empty end),
      (if ($v | type) == "array" and ($s | has("items")) then
         range(0; $v | length) as $i | $v[$i] | errors($s.items; "\($path)[\($i)]")
       else empty end)
    end;
