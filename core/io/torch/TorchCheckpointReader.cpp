#include "io/torch/TorchCheckpointReader.h"

#include "io/ElementDecoder.h"
#include "io/RegularFile.h"
#include "io/torch/PickleReader.h"

#include <limits>

namespace rankscope {

namespace {

constexpr qint64 kMaxPickleBytes = qint64(256) << 20;

// Whoever loads the file with torch must know it is not a plain weights file: torch.load refuses
// it, and with weights_only=False would call what it names. Nothing in it was run here.
QString unsafePickleText(const QStringList &globals)
{
    constexpr qsizetype kNamed = 8, kNameLength = 120;
    QStringList named;
    for (const QString &global : globals.mid(0, kNamed))
        named << (global.size() > kNameLength ? global.left(kNameLength) + QStringLiteral("…") : global);
    if (globals.size() > kNamed)
        named << QStringLiteral("%1 more").arg(globals.size() - kNamed);
    return QStringLiteral("unsafe pickle: it references %1, which torch.load(weights_only=True) refuses and "
                          "weights_only=False would import and call; nothing was executed")
        .arg(named.join(QLatin1String(", ")));
}

QVariant toVariant(const PickleRef &v, int depth = 0)
{
    using Kind = PickleValue::Kind;
    if (!v || depth > 8)
        return {};
    switch (v->kind) {
    case Kind::Bool: return bool(v->integer);
    case Kind::Int: return v->integer;
    case Kind::Float: return v->real;
    case Kind::String: return v->text;
    case Kind::Dict: {
        QVariantMap map;
        for (const auto &[key, value] : v->entries)
            if (key && key->kind == Kind::String)
                map.insert(key->text, toVariant(value, depth + 1));
        return map;
    }
    default: return {};
    }
}

} // namespace

std::unique_ptr<TorchCheckpointReader> TorchCheckpointReader::open(const QString &path, QString *error)
{
    return openArchive(path, 0, -1, error);
}

std::unique_ptr<TorchCheckpointReader> TorchCheckpointReader::openArchive(const QString &path, qint64 base, qint64 size, QString *error)
{
    std::unique_ptr<TorchCheckpointReader> reader(new TorchCheckpointReader);
    if (!reader->load(path, base, size, error))
        return nullptr;
    return reader;
}

std::unique_ptr<TorchCheckpointReader> TorchCheckpointReader::openAnyObject(const QString &path, QString *error)
{
    std::unique_ptr<TorchCheckpointReader> reader(new TorchCheckpointReader);
    reader->m_anyObject = true;
    if (!reader->load(path, 0, -1, error))
        return nullptr;
    return reader;
}

// The archive's data.pkl (and its byte order, from the byteorder entry beside it), or none and why.
std::optional<QByteArray> TorchCheckpointReader::readPickleBytes(QString *error)
{
    const ZipEntry *pickle = nullptr;
    for (const ZipEntry &entry : m_zip.entries()) {
        const QStringList parts = entry.name.split(QLatin1Char('/'));
        if (parts.size() == 2 && parts[1] == QLatin1String("data.pkl")) {
            pickle = &entry;
            m_prefix = parts[0];
            break;
        }
    }
    if (!pickle) {
        const bool torchScript = std::any_of(m_zip.entries().begin(), m_zip.entries().end(), [](const ZipEntry &e) {
            return e.name.endsWith(QLatin1String("/constants.pkl")) || e.name.contains(QLatin1String("/code/"));
        });
        *error = torchScript ? QStringLiteral("a TorchScript archive (torch.jit.save), not a torch.save checkpoint; "
                                              "save the model's state_dict() with torch.save instead")
                             : QStringLiteral("zip archive without a */data.pkl entry: not a PyTorch checkpoint");
        return std::nullopt;
    }
    if (pickle->size > static_cast<quint64>(kMaxPickleBytes)) {
        *error = QStringLiteral("data.pkl claims %1 bytes, more than RankScope reads").arg(pickle->size);
        return std::nullopt;
    }
    const auto offset = m_zip.dataOffset(m_file, *pickle, error);
    if (!offset)
        return std::nullopt;
    m_file.seek(static_cast<qint64>(*offset));
    const QByteArray pickleBytes = m_file.read(static_cast<qint64>(pickle->size));
    if (static_cast<quint64>(pickleBytes.size()) != pickle->size) {
        *error = QStringLiteral("cannot read data.pkl (truncated?)");
        return std::nullopt;
    }
    if (const ZipEntry *order = m_zip.find(m_prefix + QStringLiteral("/byteorder"))) {
        if (auto at = m_zip.dataOffset(m_file, *order, error); at && order->size < 16) {
            m_file.seek(static_cast<qint64>(*at));
            m_bigEndian = m_file.read(static_cast<qint64>(order->size)).trimmed() == "big";
        }
        error->clear();
    }

    return pickleBytes;
}

// What the checkpoint records beside its weights: the step, and the model's config.
void TorchCheckpointReader::readStepAndConfig(const PickleRef &root)
{
    using Kind = PickleValue::Kind;
    // litgpt records step_count (optimizer steps, its step-N folders' N) beside iter_num (micro-batches).
    for (const char *key : {"step_count", "iter_num", "step", "global_step"}) {
        const PickleRef v = root->value(QLatin1String(key));
        if (v && v->kind == Kind::Int) {
            m_step = v->integer;
            break;
        }
    }
    for (const char *key : {"model_args", "config", "hyper_parameters"}) {
        const QVariant v = toVariant(root->value(QLatin1String(key)));
        if (v.typeId() == QMetaType::QVariantMap) {
            m_modelConfig = v.toMap();
            break;
        }
    }
}

bool TorchCheckpointReader::load(const QString &path, qint64 base, qint64 size, QString *error)
{
    if (!RegularFile::open(m_file, path, error))
        return false;
    auto zip = ZipDirectory::read(m_file, error, base, size);
    if (!zip)
        return false;
    m_zip = std::move(*zip);

    const std::optional<QByteArray> pickleBytes = readPickleBytes(error);
    if (!pickleBytes)
        return false;
    m_pickle = readPickle(*pickleBytes);
    const PickleResult &result = m_pickle;
    // An unsafe pickle is said to be one whether or not its tensors can be read.
    auto fail = [&](const QString &why) {
        *error = result.unsafeGlobals.isEmpty() ? why : QStringLiteral("%1; and %2").arg(unsafePickleText(result.unsafeGlobals), why);
        return false;
    };
    if (!result.error.isEmpty())
        return fail(result.error);
    using Kind = PickleValue::Kind;
    // Anything else torch.save wrote (a list of RNG states, a scaler's dict of floats) is a
    // readable archive holding no tensors by name: callers decide it is not weights. Unless it
    // references globals outside torch's allow-list: that is said whatever the file holds.
    if (!result.root || result.root->kind != Kind::Dict)
        return result.unsafeGlobals.isEmpty() || m_anyObject ? true : fail(QStringLiteral("the pickled object is not a dict of tensors"));
    // The weights are the top-level dict or the one under a conventional key; optimizer state
    // (nanoGPT's 'optimizer', Lightning's 'optimizer_states') is never looked at.
    PickleRef weights = result.root;
    for (const char *key : {"model", "state_dict", "model_state_dict", "module"}) {
        const PickleRef candidate = result.root->value(QLatin1String(key));
        if (candidate && candidate->kind == Kind::Dict) {
            weights = candidate;
            break;
        }
    }
    collectTensors(weights, QString(), 0);
    refuseImpossibleViews();
    if (!result.unsafeGlobals.isEmpty()) {
        if (m_order.isEmpty() && !m_anyObject)
            return fail(QStringLiteral("no tensors found in the checkpoint"));
        m_warnings << unsafePickleText(result.unsafeGlobals) + QStringLiteral(", and its tensors were read");
    }
    readStepAndConfig(result.root);
    return true;
}

void TorchCheckpointReader::collectTensors(const PickleRef &dict, const QString &prefix, int depth)
{
    using Kind = PickleValue::Kind;
    for (const auto &[key, value] : dict->entries) {
        if (!key || key->kind != Kind::String || !value)
            continue;
        const QString name = prefix + key->text;
        if (value->kind == Kind::Tensor && !m_tensors.contains(name)) {
            m_order.append(name);
            m_tensors.insert(name, value->tensor);
        } else if (value->kind == Kind::Dict && depth < 4 && prefix.isEmpty() && m_order.isEmpty()) {
            // A state dict nested one level deeper under an unconventional key.
            collectTensors(value, QString(), depth + 1);
        }
    }
}

void TorchCheckpointReader::refuseImpossibleViews()
{
    m_order.removeIf([&](const QString &name) {
        const TensorRecord &t = m_tensors[name];
        // Only a stack of matrices is planned matrix by matrix (one per expert) before it is read;
        // a single matrix that its storage cannot hold is said when it is read.
        if (t.shape.size() != 3 || t.stride.size() != 3)
            return false;
        // A view repeating elements along an axis (stride 0) makes one stored matrix into any number
        // of "experts"; a weight stack never is one.
        for (qsizetype i = 0; i < 3; ++i)
            if (t.stride[i] == 0 && t.shape[i] > 1) {
                refuseTensor(name, QStringLiteral("repeats its elements along dimension %1 of %2 (stride 0, a broadcast view)").arg(i).arg(t.shape[i]));
                return true;
            }
        const ZipEntry *entry = m_zip.find(m_prefix + QStringLiteral("/data/") + t.storageKey);
        if (!entry)
            return false; // a missing storage is said when the tensor is read
        const qint64 stored = qint64(std::min<quint64>(entry->size, quint64(std::numeric_limits<qint64>::max())));
        if (const QString problem = declaredSizeProblem({name, t.shape, t.dtype}, stored); !problem.isEmpty()) {
            refuseTensor(name, problem);
            return true;
        }
        return false;
    });
}

QList<TensorInfo> TorchCheckpointReader::tensors() const
{
    QList<TensorInfo> list;
    for (const QString &name : m_order) {
        const TensorRecord &t = m_tensors[name];
        list.append({name, t.shape, t.dtype});
    }
    return list;
}

StoredRead TorchCheckpointReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const TensorRecord &t = m_tensors[tensor.name];
    const qsizetype rank = t.shape.size();
    if (t.stride.size() != rank)
        return {{}, QStringLiteral("has %1 strides for %2 dimensions").arg(t.stride.size()).arg(rank)};
    const qint64 sliceStride = rank == 3 ? t.stride[0] : 0;
    return readView(t, std::max<qint64>(slice, 0), sliceStride, rows, cols, t.stride[rank - 2], t.stride[rank - 1]);
}

StoredRead TorchCheckpointReader::readRecord(const TensorRecord &t, qint64 first, qint64 count)
{
    if (t.shape.size() != 1 || t.stride.size() != 1)
        return {{}, QStringLiteral("is not a 1-D tensor")};
    if (first < 0 || count <= 0 || first > t.shape[0] || count > t.shape[0] - first)
        return {{}, QStringLiteral("has no elements [%1, %2) (it holds %3)").arg(first).arg(first + count).arg(t.shape[0])};
    return readView(t, first, t.stride[0], 1, count, 0, t.stride[0]);
}

StoredRead TorchCheckpointReader::readView(const TensorRecord &t, qint64 skip, qint64 skipStride, qint64 rows, qint64 cols, qint64 rowStride,
                                           qint64 colStride)
{
    const int size = elementSize(t.dtype);
    if (size <= 0)
        return {{}, QStringLiteral("has the dtype %1, which is not read").arg(t.dtype)};
    if (t.offset < 0)
        return {{}, QStringLiteral("has a negative storage offset (%1)").arg(t.offset)};
    if (rowStride < 0 || colStride < 0 || skipStride < 0) {
        QStringList strides;
        for (const qint64 stride : t.stride)
            strides << QString::number(stride);
        return {{}, QStringLiteral("has negative strides (%1)").arg(strides.join(QLatin1String(", ")))};
    }
    // The elements this view touches: first … first + (rows−1)·rowStride + (cols−1)·colStride. In
    // 128 bits: offsets and strides come from the file and their products must not wrap.
    const __int128 firstWide = __int128(t.offset) + __int128(skip) * skipStride;
    const __int128 lastWide = firstWide + __int128(rows - 1) * rowStride + __int128(cols - 1) * colStride;
    const __int128 bytesNeeded = (lastWide + 1) * size;
    if (lastWide >= t.storageNumel || bytesNeeded > __int128(std::numeric_limits<qint64>::max()))
        return {{}, QStringLiteral("[%1, %2] lies outside its storage of %3 elements").arg(rows).arg(cols).arg(t.storageNumel)};
    const ZipEntry *entry = m_zip.find(m_prefix + QStringLiteral("/data/") + t.storageKey);
    if (!entry)
        return {{}, QStringLiteral("storage data/%1 is missing from the archive").arg(t.storageKey)};
    if (__int128(entry->size) < bytesNeeded)
        return {{}, QStringLiteral("storage data/%1 holds %2 bytes, fewer than the tensor needs").arg(t.storageKey).arg(entry->size)};
    // A view can repeat elements (stride 0) and claim far more than its storage holds; a weight
    // matrix never does, and allocating for one would let a tiny file demand gigabytes.
    if (static_cast<quint64>(rows) * static_cast<quint64>(cols) > entry->size / static_cast<quint64>(size))
        return {{}, QStringLiteral("[%1, %2] has more elements than its storage holds (a broadcast view?)").arg(rows).arg(cols)};
    QString error;
    const auto start = m_zip.dataOffset(m_file, *entry, &error);
    if (!start)
        return {{}, error};
    const qint64 first = qint64(firstWide), last = qint64(lastWide);
    const qint64 spanElements = last - first + 1;
    if (const QString hole = RegularFile::holeProblem(m_file, static_cast<qint64>(*start) + first * size, spanElements * size); !hole.isEmpty())
        return {{}, hole};
    if (!m_file.seek(static_cast<qint64>(*start) + first * size))
        return {{}, QStringLiteral("cannot seek to its data")};
    QByteArray bytes = m_file.read(spanElements * size);
    if (bytes.size() != spanElements * size)
        return {{}, QStringLiteral("data is truncated")};
    // A non-contiguous view (a transpose, a slice) keeps its strides: it is widened as it lies.
    return {StoredMatrix(std::move(bytes), t.dtype, m_bigEndian, rows, cols, 0, rowStride, colStride), {}};
}

} // namespace rankscope
