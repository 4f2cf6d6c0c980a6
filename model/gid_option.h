#pragma once
// Which GID of the port a side uses, as -x/--gid-index (server, client) and a campaign host's
// "gid_index" give it: a GID index, or a GID or an IP address that the port's GID table is
// searched for when the side sets up (choose_gid_index, engine/qp_settings.h). The one
// definition of that syntax, for the command line and the campaign file alike; no verbs.
#include <array>
#include <cstdint>
#include <string>

namespace rdmabench {

// What -x and "gid_index" allow, as an error message says it.
inline constexpr const char* kGidOptionAllowed =
    "a GID index from 0 to 65535, or a GID or an IP address of the port (fe80::202:c9ff:fe00:1, "
    "fe80:0000:0000:0000:0202:c9ff:fe00:0001, 10.0.0.1)";

struct GidOption {
  int index = -1;   // the GID index; -1 when `gid` is given instead
  std::string gid;  // a GID or an IP address, as written; "" for an index
};

// `text` as -x reads it: an index when it is digits only, else a GID or an IP address.
// ConfigError(field, text, kGidOptionAllowed) for anything else.
GidOption parse_gid_option(const std::string& field, const std::string& text);

// `text` as the 16 bytes of a GID: an IPv6 address (the form a GID is written in), or an IPv4
// one (its IPv4-mapped GID, ::ffff:a.b.c.d). False when it is neither.
bool gid_bytes(const std::string& text, std::array<uint8_t, 16>& out);

}  // namespace rdmabench
