// Reads one scalar attribute of an HDF5 object, for every reader of HDF5 files (checkpoints and
// results files). An attribute is only read after its class, element count and size are known to
// fit what is asked for: H5Aread writes the whole attribute, so a 64-element "format" read into a
// buffer for one string overflowed it.
#pragma once

#include <hdf5.h>

#include <QString>
#include <optional>

namespace rankscope {

class Hdf5Attribute {
public:
    // Longer texts are refused: no attribute RankScope reads holds more.
    static constexpr size_t kMaxTextBytes = 64 * 1024;

    // The text of a string attribute holding one value (a scalar, or an array of one), fixed- or
    // variable-length; nullopt when it is missing or is anything else (an array, a number, a text
    // longer than kMaxTextBytes).
    static std::optional<QString> readText(hid_t object, const char *name);
    // The value of an integer attribute holding one value; nullopt when missing or anything else.
    static std::optional<qint64> readInteger(hid_t object, const char *name);
};

} // namespace rankscope
