#include "io/hdf5/Hdf5CheckpointReader.h"

#include "io/ElementDecoder.h"
#include "io/hdf5/Hdf5Support.h"
#include "io/hdf5/Hdf5DatasetStorage.h"

#include <vector>

namespace rankscope {

namespace {

// The dtype RankScope gives a dataset: float16/32/64, bfloat16 (uint16 + attribute), or a
// description of what it is.
QString datasetDtype(hid_t dataset)
{
    const Hdf5Id type(H5Dget_type(dataset));
    const H5T_class_t cls = H5Tget_class(type);
    const size_t size = H5Tget_size(type);
    QString dtype;
    if (cls == H5T_FLOAT)
        dtype = size == 2 ? QStringLiteral("float16") : size == 4 ? QStringLiteral("float32") : size == 8 ? QStringLiteral("float64") : QStringLiteral("float%1").arg(size * 8);
    else if (cls == H5T_INTEGER && size == 2 && Hdf5Attribute::readText(dataset, "dtype") == QLatin1String("bfloat16"))
        dtype = QStringLiteral("bfloat16");
    else if (cls == H5T_INTEGER)
        dtype = QStringLiteral("int%1").arg(size * 8);
    else
        dtype = QStringLiteral("hdf5 class %1").arg(int(cls));
    return dtype;
}

} // namespace

struct Hdf5Visitor {
    Hdf5CheckpointReader *reader;
    static herr_t visit(hid_t group, const char *name, const H5L_info_t *info, void *data)
    {
        if (info->type != H5L_TYPE_HARD)
            return 0; // soft and external links could point anywhere: not followed
        auto *self = static_cast<Hdf5Visitor *>(data);
        const Hdf5Id object(H5Oopen(group, name, H5P_DEFAULT));
        if (!object.ok())
            return 0;
        if (H5Iget_type(object) == H5I_DATASET) {
            const Hdf5Id space(H5Dget_space(object));
            const int rank = H5Sget_simple_extent_ndims(space);
            QList<qint64> shape;
            if (rank > 0 && rank <= 8) {
                hsize_t dims[8];
                H5Sget_simple_extent_dims(space, dims, nullptr);
                for (int i = 0; i < rank; ++i)
                    shape.append(qint64(dims[i]));
            }
            const QString path = QString::fromUtf8(name);
            QString tensorName = path;
            tensorName.replace(QLatin1Char('/'), QLatin1Char('.'));
            // A stack of matrices whose data the file does not hold (10⁸ declared experts in 2 KB)
            // is refused before anything is planned for each of them; a single matrix is checked
            // when it is read.
            if (shape.size() == 3)
                if (const QString problem = Hdf5DatasetStorage::problem(object); !problem.isEmpty()) {
                    self->reader->refuseTensor(tensorName, problem);
                    return 0;
                }
            self->reader->m_tensors.append({tensorName, shape, datasetDtype(object)});
            self->reader->m_datasetPaths.insert(tensorName, path);
        }
        return 0;
    }
};

bool Hdf5CheckpointReader::hasSignature(const QByteArray &head) { return head.startsWith("\x89HDF\r\n\x1a\n"); }

std::unique_ptr<Hdf5CheckpointReader> Hdf5CheckpointReader::open(const QString &path, QString *error)
{
    Hdf5Lock lock;
    std::unique_ptr<Hdf5CheckpointReader> reader(new Hdf5CheckpointReader);
    reader->m_file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (reader->m_file < 0) {
        *error = QStringLiteral("HDF5 file cannot be opened (damaged or truncated)");
        return nullptr;
    }
    Hdf5Visitor visitor{reader.get()};
    if (H5Lvisit(reader->m_file, H5_INDEX_NAME, H5_ITER_INC, &Hdf5Visitor::visit, &visitor) < 0) {
        *error = QStringLiteral("HDF5 file's groups cannot be listed (damaged?)");
        return nullptr;
    }
    reader->m_step = Hdf5Attribute::readInteger(reader->m_file, "step");
    if (reader->m_tensors.isEmpty()) {
        *error = reader->m_warnings.isEmpty() ? QStringLiteral("HDF5 file holds no datasets") : reader->m_warnings.join(QLatin1String("; "));
        return nullptr;
    }
    return reader;
}

Hdf5CheckpointReader::~Hdf5CheckpointReader()
{
    if (m_file >= 0) {
        Hdf5Lock lock;
        H5Fclose(m_file);
    }
}

StoredRead Hdf5CheckpointReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    Hdf5Lock lock;
    const Hdf5Id dataset(H5Dopen2(m_file, m_datasetPaths.value(tensor.name).toUtf8().constData(), H5P_DEFAULT));
    if (!dataset.ok())
        return {{}, QStringLiteral("dataset cannot be opened")};
    if (const QString problem = Hdf5DatasetStorage::problem(dataset); !problem.isEmpty())
        return {{}, problem};
    // Select the one matrix (all of a 2-D dataset, one slice of a 3-D one) in the file and in memory.
    const int rank = int(tensor.shape.size());
    const Hdf5Id fileSpace(H5Dget_space(dataset));
    hsize_t start[3] = {0, 0, 0}, count[3] = {1, hsize_t(rows), hsize_t(cols)};
    if (rank == 3)
        start[0] = hsize_t(slice);
    const hsize_t *offset = rank == 3 ? start : start + 1;
    const hsize_t *extent = rank == 3 ? count : count + 1;
    const hsize_t memoryDims[2] = {hsize_t(rows), hsize_t(cols)};
    const Hdf5Id memorySpace(H5Screate_simple(2, memoryDims, nullptr));
    herr_t status = H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, offset, nullptr, extent, nullptr);
    // Read as stored where a native type holds it exactly (bfloat16 as its uint16 bits, float16 and
    // float32 as float), otherwise as double: HDF5 converts any stored float itself.
    const bool asBits = tensor.dtype == QLatin1String("bfloat16");
    const bool asFloat = tensor.dtype == QLatin1String("float32") || tensor.dtype == QLatin1String("float16");
    const QString memoryDtype = asBits ? tensor.dtype : asFloat ? QStringLiteral("float32") : QStringLiteral("float64");
    QByteArray bytes;
    if (status >= 0) {
        bytes.resize(qsizetype(rows * cols * elementSize(memoryDtype)));
        status = H5Dread(dataset, asBits ? H5T_NATIVE_UINT16 : asFloat ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, memorySpace,
                         fileSpace, H5P_DEFAULT, bytes.data());
    }
    if (status < 0)
        return {{}, QStringLiteral("data cannot be read (truncated or damaged file)")};
    return {StoredMatrix(std::move(bytes), memoryDtype, QSysInfo::ByteOrder == QSysInfo::BigEndian, rows, cols), {}};
}

} // namespace rankscope
