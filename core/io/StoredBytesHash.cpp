#include "io/StoredBytesHash.h"

#include <algorithm>
#include <cstring>

namespace rankscope {

namespace {

constexpr quint64 kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr quint64 kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr quint64 kPrime3 = 0x165667B19E3779F9ULL;
constexpr quint64 kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr quint64 kPrime5 = 0x27D4EB2F165667C5ULL;

quint64 rotl(quint64 x, int r) { return (x << r) | (x >> (64 - r)); }

// XXH64 reads its input as little-endian words on every host.
quint64 read64(const unsigned char *p)
{
    quint64 v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

quint64 read32(const unsigned char *p) { return quint64(p[0]) | quint64(p[1]) << 8 | quint64(p[2]) << 16 | quint64(p[3]) << 24; }

quint64 round(quint64 acc, quint64 input) { return rotl(acc + input * kPrime2, 31) * kPrime1; }

quint64 mergeRound(quint64 acc, quint64 lane) { return (acc ^ round(0, lane)) * kPrime1 + kPrime4; }

} // namespace

void StoredBytesHash::consumeStripe(const unsigned char *stripe)
{
    for (int k = 0; k < 4; ++k)
        m_lanes[k] = round(m_lanes[k], read64(stripe + 8 * k));
}

void StoredBytesHash::add(const char *data, std::size_t length)
{
    const auto *p = reinterpret_cast<const unsigned char *>(data);
    m_total += length;
    if (m_buffered > 0) {
        const std::size_t take = std::min(length, sizeof m_buffer - m_buffered);
        std::memcpy(m_buffer + m_buffered, p, take);
        m_buffered += take;
        p += take;
        length -= take;
        if (m_buffered < sizeof m_buffer)
            return;
        consumeStripe(m_buffer);
        m_buffered = 0;
    }
    for (; length >= sizeof m_buffer; p += sizeof m_buffer, length -= sizeof m_buffer)
        consumeStripe(p);
    std::memcpy(m_buffer, p, length);
    m_buffered = length;
}

quint64 StoredBytesHash::value() const
{
    quint64 h = m_total >= sizeof m_buffer
                    ? rotl(m_lanes[0], 1) + rotl(m_lanes[1], 7) + rotl(m_lanes[2], 12) + rotl(m_lanes[3], 18)
                    : kPrime5; // seed 0
    if (m_total >= sizeof m_buffer)
        for (const quint64 lane : m_lanes)
            h = mergeRound(h, lane);
    h += m_total;
    const unsigned char *p = m_buffer;
    std::size_t left = m_buffered;
    for (; left >= 8; p += 8, left -= 8)
        h = rotl(h ^ round(0, read64(p)), 27) * kPrime1 + kPrime4;
    if (left >= 4) {
        h = rotl(h ^ (read32(p) * kPrime1), 23) * kPrime2 + kPrime3;
        p += 4;
        left -= 4;
    }
    for (; left > 0; ++p, --left)
        h = rotl(h ^ (*p * kPrime5), 11) * kPrime1;
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h == 0 ? 1 : h;
}

} // namespace rankscope
