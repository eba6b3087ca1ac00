#include "io/hdf5/Hdf5Support.h"

#include <cstring>
#include <vector>

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

namespace {

// The attribute when it exists and holds exactly one element of the given class, with its type.
std::optional<std::pair<Hdf5Id, Hdf5Id>> openSingle(hid_t object, const char *name, H5T_class_t wanted)
{
    if (H5Aexists(object, name) <= 0)
        return std::nullopt;
    Hdf5Id attribute(H5Aopen(object, name, H5P_DEFAULT));
    if (!attribute.ok())
        return std::nullopt;
    const Hdf5Id space(H5Aget_space(attribute));
    Hdf5Id type(H5Aget_type(attribute));
    if (!space.ok() || !type.ok() || H5Sget_simple_extent_npoints(space) != 1 || H5Tget_class(type) != wanted)
        return std::nullopt;
    return std::make_pair(std::move(attribute), std::move(type));
}

} // namespace

std::optional<QString> Hdf5Attribute::readText(hid_t object, const char *name)
{
    auto opened = openSingle(object, name, H5T_STRING);
    if (!opened)
        return std::nullopt;
    const auto &[attribute, stored] = *opened;
    const htri_t variable = H5Tis_variable_str(stored);
    if (variable < 0)
        return std::nullopt;
    if (variable > 0) {
        // One element: HDF5 writes one pointer, to a string it allocated from the bytes in the file.
        const Hdf5Id memoryType(H5Tcopy(H5T_C_S1));
        if (!memoryType.ok() || H5Tset_size(memoryType, H5T_VARIABLE) < 0 || H5Tset_cset(memoryType, H5Tget_cset(stored)) < 0)
            return std::nullopt;
        char *text = nullptr;
        if (H5Aread(attribute, memoryType, &text) < 0 || !text)
            return std::nullopt;
        const size_t length = strnlen(text, kMaxTextBytes + 1);
        std::optional<QString> value;
        if (length <= kMaxTextBytes)
            value = QString::fromUtf8(text, qsizetype(length));
        H5free_memory(text);
        return value;
    }
    const size_t size = H5Tget_size(stored);
    if (size == 0 || size > kMaxTextBytes)
        return std::nullopt;
    // Read in the stored type itself, so exactly `size` bytes arrive.
    std::vector<char> buffer(size, '\0');
    if (H5Aread(attribute, stored, buffer.data()) < 0)
        return std::nullopt;
    QString value = QString::fromUtf8(buffer.data(), qsizetype(strnlen(buffer.data(), size)));
    if (H5Tget_strpad(stored) == H5T_STR_SPACEPAD)
        while (value.endsWith(QLatin1Char(' ')))
            value.chop(1);
    return value;
}

std::optional<qint64> Hdf5Attribute::readInteger(hid_t object, const char *name)
{
    const auto opened = openSingle(object, name, H5T_INTEGER);
    if (!opened)
        return std::nullopt;
    long long value = 0;
    if (H5Aread(opened->first, H5T_NATIVE_LLONG, &value) < 0)
        return std::nullopt;
    return qint64(value);
}

hid_t Hdf5Attribute::utf8StringType()
{
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    return type;
}

bool Hdf5Attribute::writeText(hid_t object, const char *name, const QString &value)
{
    const QByteArray utf8 = value.toUtf8();
    const char *pointer = utf8.constData();
    Hdf5Id space(H5Screate(H5S_SCALAR));
    Hdf5Id type(utf8StringType());
    Hdf5Id attribute(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
    return attribute.ok() && H5Awrite(attribute, type, &pointer) >= 0;
}

} // namespace rankscope
