#include "io/torch/TorchWeightsOnlyPolicy.h"

#include <QHash>
#include <QSet>
#include <QStringList>

namespace rankscope {

namespace {

QSet<QString> allowedGlobals()
{
    QSet<QString> allowed = {
        "collections.OrderedDict", "collections.Counter", "torch.nn.parameter.Parameter", "torch.serialization._get_layout",
        "torch.Size", "torch.Tensor", "torch.device", "_codecs.encode", "builtins.bytearray", "builtins.set", "builtins.complex",
        // dtypes, by str(dtype)
        "torch.float64", "torch.float32", "torch.float16", "torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.uint8",
        "torch.bool", "torch.bfloat16", "torch.complex128", "torch.complex64", "torch.qint8", "torch.qint32", "torch.quint8",
        "torch.quint4x2", "torch.quint2x4", "torch.float8_e5m2", "torch.float8_e4m3fn", "torch.float8_e5m2fnuz",
        "torch.float8_e4m3fnuz", "torch.float8_e8m0fnu", "torch.float4_e2m1fn_x2", "torch.bits8", "torch.bits16", "torch.bits1x8",
        "torch.bits2x4", "torch.bits4x2", "torch.complex32", "torch.uint16", "torch.uint32", "torch.uint64",
        // storages
        "torch.storage.UntypedStorage", "torch.storage.TypedStorage",
        // quantization schemes
        "torch.per_tensor_affine", "torch.per_tensor_symmetric", "torch.per_channel_affine", "torch.per_channel_symmetric",
        "torch.per_channel_affine_float_qparams",
        // rebuild functions (_rebuild_nested_tensor: torch 2.2 to 2.10)
        "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state", "torch._utils._rebuild_qtensor",
        "torch._utils._rebuild_tensor", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor_v3",
        "torch._utils._rebuild_sparse_tensor", "torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_nested_tensor",
        "torch._utils._rebuild_wrapper_subclass", "torch._utils._rebuild_device_tensor_from_numpy",
        "torch._utils._rebuild_device_tensor_from_cpu_tensor", "torch._tensor._rebuild_from_type_v2"};
    for (int bits = 1; bits < 8; ++bits)
        allowed << QStringLiteral("torch.uint%1").arg(bits) << QStringLiteral("torch.int%1").arg(bits);
    // Legacy storage classes, CPU and CUDA.
    const QStringList storages = {"Double", "Float", "Long", "Int", "Short", "Char", "Byte", "Half", "Bool", "BFloat16",
                                  "ComplexDouble", "ComplexFloat"};
    for (const QString &s : storages)
        allowed << QStringLiteral("torch.%1Storage").arg(s) << QStringLiteral("torch.cuda.%1Storage").arg(s);
    for (const char *s : {"QUInt8", "QInt8", "QInt32", "QUInt4x2", "QUInt2x4"})
        allowed << QStringLiteral("torch.%1Storage").arg(QLatin1String(s));
    // Legacy tensor classes: CPU and CUDA, dense and (without Bool) sparse.
    for (const char *t : {"Byte", "Char", "Double", "Float", "Int", "Long", "Short", "Half", "Bool", "BFloat16"}) {
        const QString name = QStringLiteral("%1Tensor").arg(QLatin1String(t));
        allowed << QStringLiteral("torch.") + name << QStringLiteral("torch.cuda.") + name;
        if (qstrcmp(t, "Bool") != 0)
            allowed << QStringLiteral("torch.sparse.") + name << QStringLiteral("torch.cuda.sparse.") + name;
    }
    return allowed;
}

} // namespace

QString TorchWeightsOnlyPolicy::qualifiedName(const QString &module, const QString &name)
{
    // torch/_utils.py's NAME_MAPPING, then IMPORT_MAPPING.
    static const QHash<QString, QString> names = {
        {"__builtin__ xrange", "builtins.range"},       {"__builtin__ reduce", "functools.reduce"},
        {"__builtin__ intern", "sys.intern"},           {"__builtin__ unichr", "builtins.chr"},
        {"__builtin__ unicode", "builtins.str"},        {"__builtin__ long", "builtins.int"},
        {"itertools izip", "builtins.zip"},             {"itertools imap", "builtins.map"},
        {"itertools ifilter", "builtins.filter"},       {"itertools ifilterfalse", "itertools.filterfalse"},
        {"itertools izip_longest", "itertools.zip_longest"}, {"UserDict IterableUserDict", "collections.UserDict"},
        {"UserList UserList", "collections.UserList"},  {"UserString UserString", "collections.UserString"},
        {"__builtin__ basestring", "builtins.str"},     {"exceptions StandardError", "builtins.Exception"},
        {"UserDict UserDict", "collections.UserDict"}};
    static const QHash<QString, QString> modules = {
        {"__builtin__", "builtins"}, {"copy_reg", "copyreg"}, {"Queue", "queue"}, {"repr", "reprlib"},
        {"_abcoll", "collections.abc"}, {"UserDict", "collections"}, {"UserList", "collections"},
        {"UserString", "collections"}, {"whichdb", "dbm"}, {"StringIO", "io"}, {"cStringIO", "io"}};
    if (const auto it = names.constFind(module + QLatin1Char(' ') + name); it != names.constEnd())
        return *it;
    return modules.value(module, module) + QLatin1Char('.') + name;
}

bool TorchWeightsOnlyPolicy::allows(const QString &qualifiedName)
{
    static const QSet<QString> allowed = allowedGlobals();
    return allowed.contains(qualifiedName);
}

} // namespace rankscope
