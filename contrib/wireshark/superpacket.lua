-- Wireshark / tshark dissector for the super-packet header (Li 2013, UCB/EECS-2013-83,
-- section 2.1), carried as IPv4 option 30 (RFC 4727 experimental value; layout in
-- crates/admission/src/header.rs):
--
--   type 0x1E | length 9 | sid (u32) | len (u16) | flags (bit 7 = first)
--
-- A post-dissector: after the usual dissection it walks the raw IPv4 options of each
-- frame (RFC 791 section 3.1: EOL ends the list, NOP is one byte, any other option is
-- type, length, data) and adds the fields
--   superpacket.sid, superpacket.len, superpacket.first (and superpacket.flags).
--
-- Use:   tshark -X lua_script:contrib/wireshark/superpacket.lua -r R-to-d.pcap \
--            -T fields -e ip.src -e superpacket.sid -e superpacket.len -e superpacket.first
--        wireshark -X lua_script:contrib/wireshark/superpacket.lua R-to-d.pcap
-- or copy this file into the personal Lua plugins folder (Help > About > Folders).
-- Display filter example: superpacket.first == 1

local OPTION_TYPE = 30
local OPTION_LEN = 9
local FLAG_FIRST = 0x80

local sp = Proto("superpacket", "Super-packet header (IPv4 option 30)")

local f_sid = ProtoField.uint32("superpacket.sid", "Super-packet id", base.DEC)
local f_len = ProtoField.uint16("superpacket.len", "Length (packets)", base.DEC)
local f_flags = ProtoField.uint8("superpacket.flags", "Flags", base.HEX)
local f_first = ProtoField.bool("superpacket.first", "First packet", 8, nil, FLAG_FIRST)
sp.fields = { f_sid, f_len, f_flags, f_first }

local ef_bad = ProtoExpert.new("superpacket.bad_length", "Super-packet option length is not 9",
    expert.group.MALFORMED, expert.severity.WARN)
sp.experts = { ef_bad }

-- where each IPv4 header starts (its version/IHL byte)
local ip_hdr_len = Field.new("ip.hdr_len")

function sp.dissector(tvb, pinfo, tree)
    local found = false
    for _, fi in ipairs({ ip_hdr_len() }) do
        local base_off = fi.offset
        local hl = fi.value
        local avail = math.min(base_off + hl, tvb:len())
        local i = base_off + 20
        while i < avail do
            local kind = tvb(i, 1):uint()
            if kind == 0 then break end              -- EOL
            if kind == 1 then                        -- NOP
                i = i + 1
            else
                if i + 1 >= avail then break end
                local olen = tvb(i + 1, 1):uint()
                if olen < 2 or i + olen > avail then break end
                if kind == OPTION_TYPE then
                    local st = tree:add(sp, tvb(i, olen))
                    if olen ~= OPTION_LEN then
                        st:add_proto_expert_info(ef_bad)
                    else
                        local sid = tvb(i + 2, 4):uint()
                        local len = tvb(i + 6, 2):uint()
                        local flags = tvb(i + 8, 1)
                        st:add(f_sid, tvb(i + 2, 4))
                        st:add(f_len, tvb(i + 6, 2))
                        st:add(f_flags, flags)
                        st:add(f_first, flags)
                        local first = bit.band(flags:uint(), FLAG_FIRST) ~= 0
                        st:append_text(string.format(", sid %d, len %d%s", sid, len, first and ", first" or ""))
                        if not found then
                            pinfo.cols.info:append(string.format(" [SP sid=%d len=%d%s]", sid, len,
                                first and " first" or ""))
                        end
                        found = true
                    end
                end
                i = i + olen
            end
        end
    end
end

register_postdissector(sp)
