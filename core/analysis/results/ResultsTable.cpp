#include "analysis/results/ResultsTable.h"

#include "io/hdf5/Hdf5DatasetStorage.h"
#include "io/MemoryBudget.h"

#include <algorithm>

namespace rankscope {

namespace {

bool writeStrings(hid_t group, const char *name, const QStringList &values)
{
    std::vector<QByteArray> utf8;
    std::vector<const char *> pointers;
    utf8.reserve(size_t(values.size()));
    for (const QString &v : values)
        utf8.push_back(v.toUtf8());
    for (const QByteArray &b : utf8)
        pointers.push_back(b.constData());
    const hsize_t n = hsize_t(values.size());
    Hdf5Id space(H5Screate_simple(1, &n, nullptr));
    Hdf5Id type(Hdf5Attribute::utf8StringType());
    Hdf5Id data(H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    return data.ok() && (n == 0 || H5Dwrite(data, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) >= 0);
}

template <typename T>
bool writeNumbers(hid_t group, const char *name, const std::vector<T> &values, hid_t fileType, hid_t memType)
{
    const hsize_t n = hsize_t(values.size());
    Hdf5Id space(H5Screate_simple(1, &n, nullptr));
    Hdf5Id data(H5Dcreate2(group, name, fileType, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    return data.ok() && (n == 0 || H5Dwrite(data, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
}

// Singular vectors (--subspace) compress: chunked, byte-shuffled and deflated where this HDF5 has
// zlib, stored plain where it has not.
bool writeCompressedFloats(hid_t group, const char *name, const std::vector<float> &values)
{
    const hsize_t n = hsize_t(values.size());
    Hdf5Id space(H5Screate_simple(1, &n, nullptr));
    Hdf5Id properties(H5Pcreate(H5P_DATASET_CREATE));
    if (n > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0) {
        const hsize_t chunk = std::min<hsize_t>(n, 1 << 18); // 1 MB of float32
        H5Pset_chunk(properties, 1, &chunk);
        H5Pset_shuffle(properties);
        H5Pset_deflate(properties, 4);
    }
    Hdf5Id data(H5Dcreate2(group, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, properties, H5P_DEFAULT));
    return data.ok() && (n == 0 || H5Dwrite(data, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
}

qint64 datasetLength(hid_t data)
{
    Hdf5Id space(H5Dget_space(data));
    if (!space.ok() || H5Sget_simple_extent_ndims(space) != 1)
        return -1;
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space, &n, nullptr);
    return qint64(n);
}

// A 1-D dataset's length when it holds `expected` elements (any number when expected < 0) of the
// given class, stored in the file itself and fitting in memory at memoryBytes each: a file that
// declares 2³³ singular values is refused before anything is allocated for them.
std::optional<qint64> checkedLength(hid_t data, const char *name, qint64 expected, H5T_class_t kind, size_t memoryBytes,
                                    TableProblems &problems)
{
    const qint64 n = datasetLength(data);
    if (n < 0 || (expected >= 0 && n != expected)) {
        problems.note(name, n < 0 ? QStringLiteral("is not a 1-D dataset") : QStringLiteral("has %1 entries, not %2").arg(n).arg(expected));
        return std::nullopt;
    }
    const Hdf5Id type(H5Dget_type(data));
    if (!type.ok() || H5Tget_class(type) != kind || (kind == H5T_STRING && H5Tis_variable_str(type) <= 0)) {
        problems.note(name, QStringLiteral("holds values of another type"));
        return std::nullopt;
    }
    if (const QString problem = Hdf5DatasetStorage::problem(data); !problem.isEmpty()) {
        problems.note(name, problem);
        return std::nullopt;
    }
    if (!ResultsDatasets::fitsInMemory(n, memoryBytes)) {
        problems.note(name, QStringLiteral("holds %1 entries, more than the memory available").arg(n));
        return std::nullopt;
    }
    return n;
}

std::optional<QStringList> readStrings(hid_t group, const char *name, qint64 expected, TableProblems &problems)
{
    Hdf5Id data(H5Dopen2(group, name, H5P_DEFAULT));
    if (!data.ok()) {
        problems.note(name, QStringLiteral("is missing"));
        return std::nullopt;
    }
    // The length the dataset has, not the one asked for: "any length" (-1) is no size.
    const auto n = checkedLength(data, name, expected, H5T_STRING, sizeof(char *) + sizeof(QString), problems);
    if (!n)
        return std::nullopt;
    QStringList out;
    if (*n == 0)
        return out;
    std::vector<char *> pointers(size_t(*n), nullptr);
    Hdf5Id type(Hdf5Attribute::utf8StringType());
    // A read that fails part way has allocated some strings already: they are freed either way.
    const bool read = H5Dread(data, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) >= 0;
    if (read)
        for (char *p : pointers)
            out << QString::fromUtf8(p ? p : "");
    Hdf5Id space(H5Dget_space(data));
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, pointers.data());
    if (!read) {
        problems.note(name, QStringLiteral("cannot be read"));
        return std::nullopt;
    }
    return out;
}

template <typename T>
std::optional<std::vector<T>> readNumbers(hid_t group, const char *name, qint64 expected, hid_t memType, TableProblems &problems)
{
    Hdf5Id data(H5Dopen2(group, name, H5P_DEFAULT));
    if (!data.ok()) {
        problems.note(name, QStringLiteral("is missing"));
        return std::nullopt;
    }
    const auto n = checkedLength(data, name, expected, H5Tget_class(memType), sizeof(T), problems);
    if (!n)
        return std::nullopt;
    std::vector<T> out(static_cast<size_t>(*n));
    if (*n > 0 && H5Dread(data, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
        problems.note(name, QStringLiteral("cannot be read"));
        return std::nullopt;
    }
    return out;
}

// Moves a read vector into the values, or gives nullopt when it was not read.
template <typename T>
std::optional<ColumnValues> into(std::optional<T> read, T ColumnValues::*member)
{
    if (!read)
        return std::nullopt;
    ColumnValues values;
    values.*member = std::move(*read);
    return values;
}

} // namespace

void ColumnValues::append(ColumnType type, const Cell &value)
{
    switch (type) {
    case ColumnType::Text: text << cellText(value); break;
    case ColumnType::Int32: int32.push_back(int(cellInteger(value))); break;
    case ColumnType::Int64: int64.push_back(cellInteger(value)); break;
    case ColumnType::Float64: float64.push_back(cellNumber(value)); break;
    case ColumnType::Float32: float32.push_back(float(cellNumber(value))); break;
    }
}

Cell ColumnValues::at(ColumnType type, qsizetype i) const
{
    switch (type) {
    case ColumnType::Text: return text[i];
    case ColumnType::Int32: return qint64(int32[size_t(i)]);
    case ColumnType::Int64: return qint64(int64[size_t(i)]);
    case ColumnType::Float64: return float64[size_t(i)];
    case ColumnType::Float32: return double(float32[size_t(i)]);
    }
    return {};
}

bool ResultsDatasets::write(hid_t group, const char *name, ColumnType type, const ColumnValues &values)
{
    switch (type) {
    case ColumnType::Text: return writeStrings(group, name, values.text);
    case ColumnType::Int32: return writeNumbers(group, name, values.int32, H5T_STD_I32LE, H5T_NATIVE_INT);
    case ColumnType::Int64: return writeNumbers(group, name, values.int64, H5T_STD_I64LE, H5T_NATIVE_LLONG);
    case ColumnType::Float64: return writeNumbers(group, name, values.float64, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);
    case ColumnType::Float32: return writeCompressedFloats(group, name, values.float32);
    }
    return false;
}

std::optional<ColumnValues> ResultsDatasets::read(hid_t group, const char *name, ColumnType type, qint64 expected, TableProblems &problems)
{
    switch (type) {
    case ColumnType::Text: return into(readStrings(group, name, expected, problems), &ColumnValues::text);
    case ColumnType::Int32: return into(readNumbers<int>(group, name, expected, H5T_NATIVE_INT, problems), &ColumnValues::int32);
    case ColumnType::Int64: return into(readNumbers<long long>(group, name, expected, H5T_NATIVE_LLONG, problems), &ColumnValues::int64);
    case ColumnType::Float64: return into(readNumbers<double>(group, name, expected, H5T_NATIVE_DOUBLE, problems), &ColumnValues::float64);
    case ColumnType::Float32: return into(readNumbers<float>(group, name, expected, H5T_NATIVE_FLOAT, problems), &ColumnValues::float32);
    }
    return std::nullopt;
}

qint64 ResultsDatasets::length(hid_t group, const char *name)
{
    const Hdf5Id data(H5Dopen2(group, name, H5P_DEFAULT));
    return data.ok() ? datasetLength(data) : -1;
}

bool ResultsDatasets::fitsInMemory(qint64 rows, size_t rowBytes)
{
    return rows >= 0 && quint64(rows) <= quint64(MemoryBudget::availableBytes() / 2) / rowBytes;
}

Hdf5Id openTableGroup(hid_t file, const char *group)
{
    return Hdf5Id(H5Gopen2(file, group, H5P_DEFAULT));
}

Hdf5Id createTableGroup(hid_t file, const char *group)
{
    if (qstrcmp(group, "/") == 0)
        return openTableGroup(file, group);
    return Hdf5Id(H5Gcreate2(file, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

} // namespace rankscope
