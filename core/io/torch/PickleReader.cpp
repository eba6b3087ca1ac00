#include "io/torch/PickleReader.h"

#include "io/torch/TorchWeightsOnlyPolicy.h"

#include <QHash>
#include <QSet>
#include <QtEndian>
#include <cstring>
#include <vector>

namespace rankscope {

PickleRef PickleValue::value(const QString &key) const
{
    for (const auto &[k, v] : entries)
        if (k && k->kind == Kind::String && k->text == key)
            return v;
    return nullptr;
}

namespace {

using Kind = PickleValue::Kind;

constexpr qsizetype kMaxStack = 1 << 22;
constexpr qsizetype kMaxMarks = 1 << 16;
// Far more than any checkpoint's metadata holds; a pickle that builds more is refused before it
// can exhaust memory.
constexpr size_t kMaxValues = 4'000'000;
// References put into lists, tuples and dicts, summed over the whole pickle. Objects alone do not
// bound memory: builtins.set(list) copies a list (torch's weights_only allows it), so a 1 MB pickle
// can copy a list of 10⁶ references thousands of times. Every copied or appended reference counts.
constexpr qint64 kMaxReferences = qint64(1) << 24;

QString dtypeOfStorageClass(const QString &storageClass)
{
    static const QHash<QString, QString> dtypes = {
        {"FloatStorage", "float32"},  {"HalfStorage", "float16"},  {"BFloat16Storage", "bfloat16"},
        {"DoubleStorage", "float64"}, {"LongStorage", "int64"},    {"IntStorage", "int32"},
        {"ShortStorage", "int16"},    {"CharStorage", "int8"},     {"ByteStorage", "uint8"},
        {"BoolStorage", "bool"},      {"ComplexFloatStorage", "complex64"},
        {"ComplexDoubleStorage", "complex128"}, {"Float8_e4m3fnStorage", "float8_e4m3fn"},
        {"Float8_e5m2Storage", "float8_e5m2"}};
    const QString cls = storageClass.section(QLatin1Char('.'), -1);
    return dtypes.value(cls, cls);
}

class Unpickler {
public:
    explicit Unpickler(const QByteArray &data) : m_data(data) {}

    PickleResult run()
    {
        PickleResult result;
        result.arena = m_arena;
        while (true) {
            if (!m_error.isEmpty())
                break;
            if (m_arena->size() > kMaxValues) {
                fail(QStringLiteral("pickle builds more than %1 objects").arg(kMaxValues));
                break;
            }
            if (m_pos >= m_data.size()) {
                fail(QStringLiteral("pickle ends without STOP (truncated)"));
                break;
            }
            const auto op = static_cast<unsigned char>(m_data[m_pos++]);
            if (op == '.') {
                if (m_stack.empty())
                    fail(QStringLiteral("pickle STOP with an empty stack"));
                else
                    result.root = m_stack.back();
                break;
            }
            step(op);
        }
        result.error = m_error;
        result.unsafeGlobals = m_unsafeGlobals;
        result.globals = m_globals;
        result.calls = m_calls;
        for (const QString &global : m_globals)
            if (m_globalsOnStack.value(global) > m_globalsCalled.value(global))
                result.globalsNotOnlyCalled.append(global);
        if (!m_error.isEmpty())
            result.root = nullptr;
        return result;
    }

private:
    void fail(const QString &message)
    {
        if (m_error.isEmpty())
            m_error = message;
    }

    // Charges `count` references to the pickle's budget; false (and the pickle fails) past it.
    bool spend(qint64 count)
    {
        m_references += count;
        if (m_references > kMaxReferences) {
            fail(QStringLiteral("pickle copies or stores more than %1 references (a copy bomb?)").arg(kMaxReferences));
            return false;
        }
        return true;
    }

    bool need(qint64 bytes)
    {
        if (bytes < 0 || bytes > m_data.size() - m_pos) {
            fail(QStringLiteral("pickle truncated at byte %1").arg(m_pos));
            return false;
        }
        return true;
    }
    template <typename T>
    T readLE()
    {
        if (!need(sizeof(T)))
            return T{};
        T v = qFromLittleEndian<T>(m_data.constData() + m_pos);
        m_pos += sizeof(T);
        return v;
    }
    QByteArray readBytes(qint64 length)
    {
        if (!need(length))
            return {};
        QByteArray b = m_data.mid(m_pos, length);
        m_pos += length;
        return b;
    }
    QByteArray readLine()
    {
        const qsizetype end = m_data.indexOf('\n', m_pos);
        if (end < 0) {
            fail(QStringLiteral("pickle truncated in a text argument"));
            return {};
        }
        QByteArray line = m_data.mid(m_pos, end - m_pos);
        m_pos = end + 1;
        return line;
    }

    void push(PickleRef v)
    {
        if (static_cast<qsizetype>(m_stack.size()) >= kMaxStack) {
            fail(QStringLiteral("pickle stack deeper than %1").arg(kMaxStack));
            return;
        }
        // Each time a global lands on the stack (named, fetched from the memo, duplicated) counts:
        // one that leaves it other than as a REDUCE's callable is put to another use.
        if (v && v->kind == Kind::Global)
            ++m_globalsOnStack[v->text];
        m_stack.push_back(std::move(v));
    }
    PickleRef pop()
    {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() <= m_marks.back())) {
            fail(QStringLiteral("pickle pops an empty stack at byte %1").arg(m_pos));
            return m_arena->make(Kind::None);
        }
        PickleRef v = m_stack.back();
        m_stack.pop_back();
        return v;
    }
    PickleRef top()
    {
        if (m_stack.empty()) {
            fail(QStringLiteral("pickle reads an empty stack at byte %1").arg(m_pos));
            return m_arena->make(Kind::None);
        }
        return m_stack.back();
    }
    QList<PickleRef> popToMark()
    {
        if (m_marks.empty()) {
            fail(QStringLiteral("pickle has no MARK at byte %1").arg(m_pos));
            return {};
        }
        const size_t mark = m_marks.back();
        m_marks.pop_back();
        if (!spend(qint64(m_stack.size() - mark))) {
            m_stack.resize(mark);
            return {};
        }
        QList<PickleRef> items(m_stack.begin() + static_cast<std::ptrdiff_t>(mark), m_stack.end());
        m_stack.resize(mark);
        return items;
    }

    PickleRef makeInt(qint64 i) { auto v = m_arena->make(Kind::Int); v->integer = i; return v; }
    PickleRef makeString(QString s) { auto v = m_arena->make(Kind::String); v->text = std::move(s); return v; }
    PickleRef makeTuple(QList<PickleRef> items) { auto v = m_arena->make(Kind::Tuple); v->items = std::move(items); return v; }
    PickleRef makeOpaque(const QString &what, const PickleRef &args = nullptr)
    {
        auto v = m_arena->make(Kind::Opaque);
        v->text = what;
        if (args && (args->kind == Kind::Tuple || args->kind == Kind::List) && spend(args->items.size()))
            v->items = args->items;
        return v;
    }

    // A global as torch would look it up; one torch refuses is recorded, and is then an opaque
    // value like any other (types.SimpleNamespace, functools.partial): the rest is still read.
    PickleRef makeGlobal(const QString &module, const QString &name)
    {
        const QString qualified = TorchWeightsOnlyPolicy::qualifiedName(module, name);
        if (!m_seenGlobals.contains(qualified)) {
            m_seenGlobals.insert(qualified);
            m_globals.append(qualified);
        }
        if (!TorchWeightsOnlyPolicy::allows(qualified) && !m_seenUnsafe.contains(qualified)) {
            m_seenUnsafe.insert(qualified);
            m_unsafeGlobals.append(qualified);
        }
        auto v = m_arena->make(Kind::Global);
        v->text = qualified;
        return v;
    }

    void memoPut(quint64 index) { m_memo.insert(index, top()); }
    void memoGet(quint64 index)
    {
        const auto it = m_memo.constFind(index);
        if (it == m_memo.constEnd()) {
            fail(QStringLiteral("pickle refers to memo entry %1, which was never stored").arg(index));
            return;
        }
        push(*it);
    }

    static qint64 toInt(PickleRef v) { return v && (v->kind == Kind::Int || v->kind == Kind::Bool) ? v->integer : 0; }
    static QList<qint64> toIntList(PickleRef v)
    {
        QList<qint64> out;
        if (v && (v->kind == Kind::Tuple || v->kind == Kind::List))
            for (const auto &item : v->items)
                out.append(toInt(item));
        return out;
    }

    // What calling `callable(*args)` would have produced, for the few callables torch checkpoints use.
    PickleRef apply(const PickleRef &callable, const PickleRef &args)
    {
        if (!callable || callable->kind != Kind::Global)
            return makeOpaque(QStringLiteral("call"));
        const QString &name = callable->text;
        const QList<PickleRef> a = args && args->kind == Kind::Tuple ? args->items : QList<PickleRef>{};
        if (name == QLatin1String("collections.OrderedDict") || name == QLatin1String("builtins.dict"))
            return m_arena->make(Kind::Dict);
        if (name == QLatin1String("torch._utils._rebuild_tensor_v2") || name == QLatin1String("torch._utils._rebuild_tensor_v3") ||
            name == QLatin1String("torch._utils._rebuild_tensor")) {
            if (a.size() < 4 || a[0]->kind != Kind::Storage)
                return makeOpaque(name);
            auto t = m_arena->make(Kind::Tensor);
            t->tensor = a[0]->tensor;
            t->tensor.offset = toInt(a[1]);
            t->tensor.shape = toIntList(a[2]);
            t->tensor.stride = toIntList(a[3]);
            // _v3 carries the dtype explicitly (index 6), e.g. the global torch.bfloat16.
            if (name.endsWith(QLatin1String("_v3")) && a.size() > 6 && a[6]->kind == Kind::Global)
                t->tensor.dtype = a[6]->text.section(QLatin1Char('.'), -1);
            return t;
        }
        if (name == QLatin1String("torch._utils._rebuild_parameter") ||
            name == QLatin1String("torch._utils._rebuild_parameter_with_state"))
            return a.isEmpty() ? makeOpaque(name) : a[0];
        if (name == QLatin1String("torch._tensor._rebuild_from_type_v2") || name == QLatin1String("torch._tensor._rebuild_from_type")) {
            // (func, type, args, state): the tensor is func(*args); the subclass type is dropped.
            if (a.size() >= 3)
                return apply(a[0], a[2]);
            return makeOpaque(name);
        }
        if (name == QLatin1String("torch.Size")) // torch.Size((4, 8)): the shape as a tuple
            return !a.isEmpty() && a[0] && (a[0]->kind == Kind::Tuple || a[0]->kind == Kind::List) && spend(a[0]->items.size())
                       ? makeTuple(a[0]->items)
                       : makeTuple({});
        if (name == QLatin1String("builtins.set") || name == QLatin1String("builtins.frozenset") ||
            name == QLatin1String("builtins.list") || name == QLatin1String("builtins.tuple")) {
            auto v = m_arena->make(Kind::List);
            if (!a.isEmpty() && a[0] && spend(a[0]->items.size() + a[0]->entries.size()))
                v->items = a[0]->items;
            return v;
        }
        return makeOpaque(name, args);
    }

    void step(unsigned char op)
    {
        switch (op) {
        case 0x80: readLE<quint8>(); break;                 // PROTO
        case 0x95: readLE<quint64>(); break;                // FRAME: a hint only
        case '(':
            if (static_cast<qsizetype>(m_marks.size()) >= kMaxMarks)
                fail(QStringLiteral("pickle nests more than %1 MARKs").arg(kMaxMarks));
            else
                m_marks.push_back(m_stack.size());
            break;
        case ')': push(makeTuple({})); break;
        case ']': push(m_arena->make(Kind::List)); break;
        case 'l': { auto v = m_arena->make(Kind::List); v->items = popToMark(); push(v); break; }
        case '}': push(m_arena->make(Kind::Dict)); break;
        case 0x8f: push(m_arena->make(Kind::List)); break; // EMPTY_SET, kept as a list
        case 'N': push(m_arena->make(Kind::None)); break;
        case 0x88: case 0x89: { auto v = m_arena->make(Kind::Bool); v->integer = op == 0x88; push(v); break; }
        case 'J': push(makeInt(readLE<qint32>())); break;
        case 'K': push(makeInt(readLE<quint8>())); break;
        case 'M': push(makeInt(readLE<quint16>())); break;
        case 0x8a: case 0x8b: {                              // LONG1, LONG4
            const qint64 length = op == 0x8a ? readLE<quint8>() : readLE<qint32>();
            const QByteArray digits = readBytes(length);
            qint64 value = 0;
            if (length > 0 && length <= 8 && digits.size() == length) {
                unsigned char buffer[8];
                const bool negative = static_cast<unsigned char>(digits[length - 1]) & 0x80;
                std::memset(buffer, negative ? 0xFF : 0, 8);
                std::memcpy(buffer, digits.constData(), static_cast<size_t>(length));
                value = qFromLittleEndian<qint64>(buffer);
            }
            push(makeInt(value)); // larger integers do not occur in checkpoints' metadata we use
            break;
        }
        case 'G': {
            if (!need(8)) break;
            auto v = m_arena->make(Kind::Float);
            v->real = qFromBigEndian<double>(m_data.constData() + m_pos);
            m_pos += 8;
            push(v);
            break;
        }
        case 'X': push(makeString(QString::fromUtf8(readBytes(readLE<quint32>())))); break;
        case 0x8c: push(makeString(QString::fromUtf8(readBytes(readLE<quint8>())))); break;
        case 0x8d: push(makeString(QString::fromUtf8(readBytes(static_cast<qint64>(std::min<quint64>(readLE<quint64>(), quint64(1) << 62)))))); break;
        case 'T': push(makeString(QString::fromLatin1(readBytes(readLE<qint32>())))); break;
        case 'U': push(makeString(QString::fromLatin1(readBytes(readLE<quint8>())))); break;
        case 'B': case 'C': case 0x8e: case 0x96: {
            const qint64 length = op == 'B' ? qint64(readLE<quint32>()) : op == 'C' ? qint64(readLE<quint8>())
                                                                      : qint64(std::min<quint64>(readLE<quint64>(), quint64(1) << 62));
            auto v = m_arena->make(Kind::Bytes);
            v->bytes = readBytes(length);
            push(v);
            break;
        }
        case 'q': memoPut(readLE<quint8>()); break;
        case 'r': memoPut(readLE<quint32>()); break;
        case 0x94: memoPut(static_cast<quint64>(m_memo.size())); break;
        case 'h': memoGet(readLE<quint8>()); break;
        case 'j': memoGet(readLE<quint32>()); break;
        case 'p': memoPut(readLine().toULongLong()); break;
        case 'g': memoGet(readLine().toULongLong()); break;
        case 'c': {
            const QString module = QString::fromUtf8(readLine());
            const QString name = QString::fromUtf8(readLine());
            push(makeGlobal(module, name));
            break;
        }
        case 0x93: {                                         // STACK_GLOBAL
            const PickleRef name = pop();
            const PickleRef module = pop();
            if (!name->isString() || !module->isString())
                fail(QStringLiteral("pickle STACK_GLOBAL without module and name strings"));
            else
                push(makeGlobal(module->text, name->text));
            break;
        }
        case 'R': {
            const PickleRef args = pop();
            const PickleRef callable = pop();
            const PickleRef value = apply(callable, args);
            if (callable->kind == Kind::Global) {
                ++m_globalsCalled[callable->text];
                m_calls.append({callable->text, args, value});
            }
            push(value);
            break;
        }
        case 0x81: {                                         // NEWOBJ cls.__new__(cls, *args)
            const PickleRef args = pop();
            const PickleRef cls = pop();
            push(makeOpaque(cls->text, args));
            break;
        }
        case 0x92: {                                         // NEWOBJ_EX
            pop();
            const PickleRef args = pop();
            const PickleRef cls = pop();
            push(makeOpaque(cls->text, args));
            break;
        }
        case 'i': {                                          // INST (protocol 0)
            const QString module = QString::fromUtf8(readLine());
            const QString name = QString::fromUtf8(readLine());
            const QString qualified = makeGlobal(module, name)->text;
            ++m_globalsOnStack[qualified]; // instantiated, never on the stack: not a REDUCE call
            popToMark();
            push(makeOpaque(qualified));
            break;
        }
        case 'o': {                                          // OBJ
            const QList<PickleRef> items = popToMark();
            push(makeOpaque(items.isEmpty() ? QString() : items.first()->text));
            break;
        }
        case 'b': {                                          // BUILD: an object's state, kept as data
            const PickleRef state = pop();
            const PickleRef object = top();
            if (object->kind == Kind::Opaque && !object->state)
                object->state = state;
            break;
        }
        case 'Q': {                                          // BINPERSID
            const PickleRef pid = pop();
            push(persistentLoad(pid));
            break;
        }
        case 't': push(makeTuple(popToMark())); break;
        case 0x85: { auto a = pop(); push(makeTuple({a})); break; }
        case 0x86: { auto b = pop(); auto a = pop(); push(makeTuple({a, b})); break; }
        case 0x87: { auto c = pop(); auto b = pop(); auto a = pop(); push(makeTuple({a, b, c})); break; }
        case 'd': {
            const QList<PickleRef> items = popToMark();
            auto dict = m_arena->make(Kind::Dict);
            for (qsizetype i = 0; i + 1 < items.size(); i += 2)
                dict->entries.append(qMakePair(items[i], items[i + 1]));
            push(dict);
            break;
        }
        case 'a': { auto item = pop(); auto list = top(); if (list->kind == Kind::List && spend(1)) list->items.append(item); break; }
        case 'e': case 0x90: {                               // APPENDS, ADDITEMS
            const QList<PickleRef> items = popToMark();
            auto list = top();
            if (list->kind == Kind::List)
                list->items.append(items);
            break;
        }
        case 0x91: { auto v = m_arena->make(Kind::List); v->items = popToMark(); push(v); break; }
        case 's': {
            auto value = pop();
            auto key = pop();
            auto dict = top();
            if (dict->kind == Kind::Dict && spend(2))
                dict->entries.append(qMakePair(key, value));
            break;
        }
        case 'u': {
            const QList<PickleRef> items = popToMark();
            auto dict = top();
            if (items.size() % 2)
                fail(QStringLiteral("pickle SETITEMS with an odd number of items"));
            else if (dict->kind == Kind::Dict)
                for (qsizetype i = 0; i + 1 < items.size(); i += 2)
                    dict->entries.append(qMakePair(items[i], items[i + 1]));
            break;
        }
        case '0': pop(); break;
        case '1': popToMark(); break;
        case '2': push(top()); break;
        case 'I': {
            const QByteArray line = readLine();
            if (line == "01" || line == "00") {
                auto v = m_arena->make(Kind::Bool);
                v->integer = line == "01";
                push(v);
            } else {
                push(makeInt(line.toLongLong()));
            }
            break;
        }
        case 'L': {
            QByteArray line = readLine();
            if (line.endsWith('L'))
                line.chop(1);
            push(makeInt(line.toLongLong()));
            break;
        }
        case 'F': { auto v = m_arena->make(Kind::Float); v->real = readLine().toDouble(); push(v); break; }
        default:
            fail(QStringLiteral("pickle opcode 0x%1 at byte %2 is not supported")
                     .arg(op, 2, 16, QLatin1Char('0'))
                     .arg(m_pos - 1));
        }
    }

    // torch.save's persistent id: ('storage', StorageClass, key, location, numel).
    PickleRef persistentLoad(const PickleRef &pid)
    {
        if (pid->kind != Kind::Tuple || pid->items.size() < 5 || !pid->items[0]->isString() ||
            pid->items[0]->text != QLatin1String("storage")) {
            fail(QStringLiteral("pickle has a persistent id that is not a torch storage"));
            return m_arena->make(Kind::None);
        }
        auto storage = m_arena->make(Kind::Storage);
        const PickleRef &cls = pid->items[1];
        storage->tensor.dtype = dtypeOfStorageClass(cls->text);
        storage->tensor.storageKey = pid->items[2]->isString() ? pid->items[2]->text : QString::number(toInt(pid->items[2]));
        storage->tensor.storageNumel = toInt(pid->items[4]);
        return storage;
    }

    const QByteArray &m_data;
    std::shared_ptr<PickleArena> m_arena = std::make_shared<PickleArena>();
    qsizetype m_pos = 0;
    std::vector<PickleRef> m_stack;
    std::vector<size_t> m_marks;
    QHash<quint64, PickleRef> m_memo;
    qint64 m_references = 0;
    QString m_error;
    QStringList m_unsafeGlobals;
    QSet<QString> m_seenUnsafe;
    QStringList m_globals;
    QSet<QString> m_seenGlobals;
    QList<PickleCall> m_calls;
    QHash<QString, qint64> m_globalsOnStack; // times each global was put on the stack
    QHash<QString, qint64> m_globalsCalled;  // times each was the callable of a REDUCE
};

} // namespace

PickleResult readPickle(const QByteArray &data) { return Unpickler(data).run(); }

} // namespace rankscope
