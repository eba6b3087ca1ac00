// Writers of HDF5 files for the tests and the HDF5 fuzzer: attributes of every shape a file can
// give them (scalars, arrays, variable- and fixed-length strings) and datasets stored every way
// (written, never written, chunked with a fill value, in an external file).
#pragma once

#include <hdf5.h>

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>
#include <vector>

namespace rankscope::test {

// A results file a test has edited with libhdf5, to make it what some writer could have written:
// its seal (the SHA-256 in the user block, analysis/results/ResultsFile.cpp) cleared, so that it is
// read as a file from before the seal, and what the test checks is what load says of its content.
// Files without the seal are left as they are.
inline void clearResultsSeal(const QString &path)
{
    QFile file(path);
    if (file.open(QIODevice::ReadWrite) && file.peek(22) == "RankScope results file")
        file.write(QByteArray(512, '\0'));
}

// How an attribute is stored: one value or `count` of them, as text or as numbers.
enum class AttributeShape { Int64Scalar, Int64Array, Float64Scalar, VlenStringScalar, VlenStringArray, FixedStringScalar, FixedStringArray };

// Writes attribute `name` on `object`: `count` elements of `text` (strings) or `number` (numbers);
// fixed-length strings are `size` bytes each. Replaces an attribute of that name.
inline void writeAttribute(hid_t object, const char *name, AttributeShape shape, const QByteArray &text, long long number,
                           hsize_t count = 64, size_t size = 0)
{
    if (H5Aexists(object, name) > 0)
        H5Adelete(object, name);
    const bool scalar = shape == AttributeShape::Int64Scalar || shape == AttributeShape::Float64Scalar ||
                        shape == AttributeShape::VlenStringScalar || shape == AttributeShape::FixedStringScalar;
    const hsize_t n = scalar ? 1 : count;
    const hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr);
    hid_t type = -1;
    std::vector<char> buffer;
    std::vector<const char *> pointers(n, text.constData());
    std::vector<long long> integers(n, number);
    std::vector<double> reals(n, double(number));
    const void *data = nullptr;
    switch (shape) {
    case AttributeShape::Int64Scalar:
    case AttributeShape::Int64Array:
        type = H5Tcopy(H5T_STD_I64LE);
        data = integers.data();
        break;
    case AttributeShape::Float64Scalar:
        type = H5Tcopy(H5T_IEEE_F64LE);
        data = reals.data();
        break;
    case AttributeShape::VlenStringScalar:
    case AttributeShape::VlenStringArray:
        type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        H5Tset_cset(type, H5T_CSET_UTF8);
        data = pointers.data();
        break;
    case AttributeShape::FixedStringScalar:
    case AttributeShape::FixedStringArray: {
        const size_t width = size ? size : size_t(std::max<qsizetype>(1, text.size()));
        type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, width);
        buffer.assign(width * n, '\0');
        for (hsize_t i = 0; i < n; ++i)
            std::copy_n(text.constData(), std::min<size_t>(width, size_t(text.size())), buffer.data() + i * width);
        data = buffer.data();
        break;
    }
    }
    const hid_t attribute = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t memoryType = shape == AttributeShape::Int64Scalar || shape == AttributeShape::Int64Array ? H5T_NATIVE_LLONG
                             : shape == AttributeShape::Float64Scalar                                     ? H5T_NATIVE_DOUBLE
                                                                                                           : type;
    H5Awrite(attribute, memoryType, data);
    H5Aclose(attribute);
    H5Tclose(type);
    H5Sclose(space);
}

// How a dataset's bytes are kept.
enum class DatasetStorage {
    Written,        // contiguous, all values written
    NeverWritten,   // contiguous, allocated late and never written: no bytes in the file
    FilledChunks,   // chunked with a fill value, one chunk written
    External,       // contiguous, in another file (externalPath)
};

// A dataset of the given shape and stored type (float64 unless said) at `path`, groups created as
// needed, its values 1, 2, … where written.
inline void writeDataset(hid_t file, const char *path, const std::vector<hsize_t> &dims, DatasetStorage storage,
                         const QString &externalPath = {}, hid_t fileType = H5T_IEEE_F64LE)
{
    const hid_t space = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
    const hid_t links = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(links, 1);
    const hid_t creation = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t elements = 1;
    for (hsize_t d : dims)
        elements *= d;
    if (storage == DatasetStorage::NeverWritten)
        H5Pset_alloc_time(creation, H5D_ALLOC_TIME_LATE);
    if (storage == DatasetStorage::FilledChunks) {
        std::vector<hsize_t> chunk(dims.size(), 64);
        H5Pset_chunk(creation, int(chunk.size()), chunk.data());
        const double fill = 1.0;
        H5Pset_fill_value(creation, H5T_NATIVE_DOUBLE, &fill);
    }
    if (storage == DatasetStorage::External)
        H5Pset_external(creation, externalPath.toLocal8Bit().constData(), 0, elements * H5Tget_size(fileType));
    const hid_t dataset = H5Dcreate2(file, path, fileType, space, links, creation, H5P_DEFAULT);
    if (storage == DatasetStorage::Written) {
        std::vector<double> values(elements);
        for (hsize_t i = 0; i < elements; ++i)
            values[i] = double(i + 1);
        H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    } else if (storage == DatasetStorage::FilledChunks) {
        std::vector<hsize_t> start(dims.size(), 0), count(dims.size(), 64);
        const hid_t memory = H5Screate_simple(int(count.size()), count.data(), nullptr);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
        std::vector<double> values(64 * 64, 2.0);
        H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, values.data());
        H5Sclose(memory);
    }
    H5Dclose(dataset);
    H5Pclose(creation);
    H5Pclose(links);
    H5Sclose(space);
}

// Open HDF5 ids of any kind, in every file: zero once everything was closed.
inline ssize_t openHdf5Objects()
{
    return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
}

} // namespace rankscope::test
