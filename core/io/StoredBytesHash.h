// A 64-bit fingerprint of a matrix's stored bytes, fed as the bytes are walked: XXH64 (seed 0), a
// fast non-cryptographic hash, so that two checkpoints holding the same weights are known without
// keeping either. Equal fingerprints of equal shape and dtype are taken for the same bytes; the
// chance that two different matrices share one is about 2⁻⁶⁴.
#pragma once

#include <QtGlobal>
#include <cstddef>

namespace rankscope {

class StoredBytesHash {
public:
    void add(const char *data, std::size_t length);
    // XXH64 of every byte added so far, in order, whatever the chunks; never 0, which stands for
    // "no fingerprint" in results (a hash of 0 is given as 1).
    quint64 value() const;

private:
    void consumeStripe(const unsigned char *stripe);

    quint64 m_lanes[4] = {0x9E3779B185EBCA87ULL + 0xC2B2AE3D27D4EB4FULL, 0xC2B2AE3D27D4EB4FULL, 0, 0ULL - 0x9E3779B185EBCA87ULL};
    unsigned char m_buffer[32] = {};
    std::size_t m_buffered = 0;
    quint64 m_total = 0;
};

} // namespace rankscope
