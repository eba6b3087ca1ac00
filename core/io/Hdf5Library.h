// Debian's HDF5 is built without thread safety: every HDF5 call in RankScope holds this lock.
// Constructing it also silences HDF5's own error printing; readers report errors themselves.
#pragma once

#include <QMutex>

namespace rankscope {

class Hdf5Lock {
public:
    Hdf5Lock();
    ~Hdf5Lock();
    Hdf5Lock(const Hdf5Lock &) = delete;
    Hdf5Lock &operator=(const Hdf5Lock &) = delete;
};

} // namespace rankscope
