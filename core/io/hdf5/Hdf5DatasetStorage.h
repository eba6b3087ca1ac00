// Whether an HDF5 dataset's elements come from bytes the file itself holds, asked before anything
// is allocated for them. A dataset can declare 46000×46000 elements in a 2 KB file (never written:
// it reads as its fill value), keep its bytes in another file (external storage, virtual
// datasets: /etc/passwd, a FIFO), or claim more than its compressed chunks could inflate to.
#pragma once

#include <hdf5.h>

#include <QString>

namespace rankscope {

class Hdf5DatasetStorage {
public:
    // Empty when the dataset can be read; otherwise what is wrong, without the dataset's name.
    static QString problem(hid_t dataset);
};

} // namespace rankscope
