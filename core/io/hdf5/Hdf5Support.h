// RankScope's one home for the HDF5 C library, for every reader and writer of HDF5 files
// (checkpoints and results files): the lock every call holds, identifiers that close themselves,
// and checked reading and writing of scalar attributes.
#pragma once

#include <hdf5.h>

#include <QMutex>
#include <QString>
#include <optional>
#include <utility>

namespace rankscope {

// Debian's HDF5 is built without thread safety: every HDF5 call in RankScope holds this lock.
// Constructing it also silences HDF5's own error printing; readers report errors themselves.
class Hdf5Lock {
public:
    Hdf5Lock();
    ~Hdf5Lock();
    Hdf5Lock(const Hdf5Lock &) = delete;
    Hdf5Lock &operator=(const Hdf5Lock &) = delete;
};

// An HDF5 identifier (file, group, dataset, attribute, type, space, property list) that closes
// itself. An id left open on some early return keeps its file open until exit, when HDF5's own
// cleanup flushes it: on a full disk that flush crashed the process after it had reported the
// failure. Create, use and destroy one only while holding Hdf5Lock.
class Hdf5Id {
public:
    Hdf5Id() = default;
    explicit Hdf5Id(hid_t id) : m_id(id) {}
    ~Hdf5Id() { close(); }
    Hdf5Id(Hdf5Id &&other) noexcept : m_id(std::exchange(other.m_id, H5I_INVALID_HID)) {}
    Hdf5Id &operator=(Hdf5Id &&other) noexcept
    {
        if (this != &other) {
            close();
            m_id = std::exchange(other.m_id, H5I_INVALID_HID);
        }
        return *this;
    }
    Hdf5Id(const Hdf5Id &) = delete;
    Hdf5Id &operator=(const Hdf5Id &) = delete;

    operator hid_t() const { return m_id; }
    bool ok() const { return m_id >= 0; }
    // False when HDF5 reports the close failed; the id is released either way.
    bool close()
    {
        // H5Idec_ref closes an id of any kind, as H5Fclose, H5Dclose, … would.
        const bool closed = m_id < 0 || H5Idec_ref(m_id) >= 0;
        m_id = H5I_INVALID_HID;
        return closed;
    }

private:
    hid_t m_id = H5I_INVALID_HID;
};

// Reads one scalar attribute of an HDF5 object, for every reader of HDF5 files (checkpoints and
// results files). An attribute is only read after its class, element count and size are known to
// fit what is asked for: H5Aread writes the whole attribute, so a 64-element "format" read into a
// buffer for one string overflowed it.
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

    // Writes a scalar UTF-8 string attribute; false when HDF5 refuses.
    static bool writeText(hid_t object, const char *name, const QString &value);
    // Writes a scalar number attribute stored as fileType from a value of memType.
    template <typename T>
    static bool writeNumber(hid_t object, const char *name, T value, hid_t fileType, hid_t memType)
    {
        Hdf5Id space(H5Screate(H5S_SCALAR));
        Hdf5Id attribute(H5Acreate2(object, name, fileType, space, H5P_DEFAULT, H5P_DEFAULT));
        return attribute.ok() && H5Awrite(attribute, memType, &value) >= 0;
    }
    // A variable-length UTF-8 string type (close it with Hdf5Id).
    static hid_t utf8StringType();
};

} // namespace rankscope
