// safetensors files: an 8-byte header length, a JSON header naming each tensor's dtype, shape and
// byte range, then the data. Validated as the reference implementation does before any tensor is
// read; data is copied out, never reinterpreted in place (it need not be aligned).
#pragma once

#include "io/CheckpointReader.h"

#include <QFile>
#include <QHash>
#include <optional>

class QJsonObject;

namespace rankscope {

class SafetensorsReader : public CheckpointReader {
public:
    static std::unique_ptr<SafetensorsReader> open(const QString &path, QString *error);
    static bool looksLikeSafetensors(QFile &file);

    QString formatName() const override { return QStringLiteral("safetensors"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    // The header's "__metadata__": the writer's own string → string notes (nanotron's slices).
    const QHash<QString, QString> &metadata() const { return m_metadata; }
    bool readsPackedSlices() const override { return true; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;
    PackedRead readPackedElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    struct Range {
        quint64 begin;
        quint64 end;
    };
    struct Entry {
        QString name;
        Range range;
    };
    SafetensorsReader() = default;
    bool load(const QString &path, QString *error);
    // load's steps: the header's bytes, one tensor's entry, the entries tiling the data.
    static std::optional<QByteArray> readHeader(QFile &file, QString *error);
    static std::optional<Range> readEntry(const QString &key, const QJsonObject &t, quint64 dataSize, TensorInfo &info, QString *error);
    static QString tilingProblem(QList<Entry> byOffset, quint64 dataSize);

    QFile m_file;
    quint64 m_dataStart = 0;
    QList<TensorInfo> m_tensors;
    QHash<QString, qsizetype> m_index;
    QHash<QString, Range> m_ranges;
    QHash<QString, QString> m_metadata;
};

// "F32" → "float32", …; an empty string for a dtype safetensors does not define.
QString safetensorsDtypeName(const QString &code);

} // namespace rankscope
