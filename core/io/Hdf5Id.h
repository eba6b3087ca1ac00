// An HDF5 identifier (file, group, dataset, attribute, type, space, property list) that closes
// itself. An id left open on some early return keeps its file open until exit, when HDF5's own
// cleanup flushes it: on a full disk that flush crashed the process after it had reported the
// failure. Create, use and destroy one only while holding Hdf5Lock.
#pragma once

#include <hdf5.h>
#include <utility>

namespace rankscope {

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

} // namespace rankscope
