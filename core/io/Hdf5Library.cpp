#include "io/Hdf5Library.h"

#include <hdf5.h>

namespace rankscope {

namespace {
QRecursiveMutex &mutex()
{
    static QRecursiveMutex m;
    return m;
}
} // namespace

Hdf5Lock::Hdf5Lock()
{
    mutex().lock();
    static const bool silenced = [] { return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0; }();
    Q_UNUSED(silenced);
}

Hdf5Lock::~Hdf5Lock() { mutex().unlock(); }

} // namespace rankscope
