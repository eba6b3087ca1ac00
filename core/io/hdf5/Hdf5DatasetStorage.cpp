#include "io/hdf5/Hdf5DatasetStorage.h"

#include "io/hdf5/Hdf5Support.h"
#include "io/MemoryBudget.h"


namespace rankscope {

QString Hdf5DatasetStorage::problem(hid_t dataset)
{
    const Hdf5Id properties(H5Dget_create_plist(dataset));
    const Hdf5Id space(H5Dget_space(dataset));
    const Hdf5Id type(H5Dget_type(dataset));
    const H5D_layout_t layout = properties.ok() ? H5Pget_layout(properties) : H5D_LAYOUT_ERROR;
    const int externalFiles = properties.ok() ? H5Pget_external_count(properties) : -1;
    const hssize_t elements = space.ok() ? H5Sget_simple_extent_npoints(space) : -1;
    const size_t elementBytes = type.ok() ? H5Tget_size(type) : 0;
    if (layout == H5D_LAYOUT_ERROR || externalFiles < 0 || elements < 0 || elementBytes == 0)
        return QStringLiteral("its layout cannot be read (damaged file?)");
    // Like an external link, neither is followed: the file would make RankScope read another file.
    if (layout == H5D_VIRTUAL)
        return QStringLiteral("is a virtual dataset made of datasets in other files; RankScope reads only data stored in the file itself");
    if (externalFiles > 0) {
        char name[256] = {};
        off_t offset = 0;
        hsize_t size = 0;
        H5Pget_external(properties, 0, sizeof name - 1, name, &offset, &size);
        return QStringLiteral("its data is stored outside the file (external storage in '%1'); RankScope reads only data stored in the file itself")
            .arg(QString::fromUtf8(name));
    }
    if (elements == 0)
        return {};
    const unsigned __int128 declared = (unsigned __int128)(elements) * elementBytes;
    const QString declaredText = MemoryBudget::bytesText(declared > (unsigned __int128)(INT64_MAX) ? INT64_MAX : qint64(declared));
    const hsize_t stored = H5Dget_storage_size(dataset);
    if (stored == 0)
        return QStringLiteral("declares %1 elements (%2) but stores no data (never written: it would read as its fill value)")
            .arg(elements).arg(declaredText);
    if (layout == H5D_CHUNKED) {
        // Chunks may be compressed, and unwritten ones read as the fill value; but no filter makes a
        // stored byte into more than deflate's 1032.
        if (declared > (unsigned __int128)(stored) * MemoryBudget::kMaxInflationRatio)
            return QStringLiteral("declares %1 but stores %2: more than compression or fill values can make of it (at most %3:1)")
                .arg(declaredText, MemoryBudget::bytesText(qint64(stored)))
                .arg(MemoryBudget::kMaxInflationRatio);
    } else if (stored < declared) {
        return QStringLiteral("stores %1 of the %2 bytes it declares (damaged file?)").arg(stored).arg(qint64(declared));
    }
    return {};
}

} // namespace rankscope
