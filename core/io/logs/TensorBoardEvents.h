// TensorBoard event files (events.out.tfevents.*): the scalars a run logged through
// torch.utils.tensorboard, tensorboardX, TensorFlow's tf.summary or TensorBoard's own writer.
// A file is TFRecord framing around serialized Event protobufs; both are decoded here by a small
// reader of our own (a protobuf library would be a build and fuzzing dependency for five messages).
// Files are read record by record, never whole: memory grows with the scalar points kept, not with
// the file (a 1 GB log of images and histograms costs its largest record, at most kMaxRecordBytes).
#pragma once

#include "io/logs/ScalarLog.h"

#include <QByteArrayView>
#include <QIODevice>
#include <QList>
#include <QSet>
#include <QString>

namespace rankscope {

class TensorBoardEvents {
public:
    // A single record may not claim more than this: an Event holding one summary is kilobytes; an
    // image summary a few megabytes. A larger claim (with a valid length CRC) is refused unread.
    static constexpr qint64 kMaxRecordBytes = qint64(256) << 20;

    // TensorBoard's writer names its files "events.out.tfevents.%010d.%s.%s.%s" % (time, hostname,
    // pid, counter) + suffix (event_file_writer.py); TensorFlow's C++ writer
    // "events.out.tfevents.<time>.<hostname>" + suffix. Both start with the same prefix.
    static bool isEventFile(const QString &fileName);

    // Adds the scalars of one event file to log, one series per tag, the points in file order (a
    // step logged twice: the later record wins). A damaged, truncated or undecodable record is said
    // through log.addProblem(path, …) with its byte offset, and reading that file stops there; the
    // points before it are kept. The caller merges the files of one run in file-name order.
    static void read(const QString &path, ScalarLog &log);
    // The same from an open device read from its current position (tests, fuzzing, a growing log);
    // path names it in the log. The device's size() bounds every record.
    static void read(QIODevice &device, const QString &path, ScalarLog &log);

    // CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TFRecord checksums its framing:
    // crc32c("123456789") == 0xE3069283. crc continues an earlier checksum.
    static quint32 crc32c(QByteArrayView bytes, quint32 crc = 0);
    // TFRecord's masked form: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
    static quint32 maskedCrc32c(QByteArrayView bytes);

    struct Scalar {
        QString tag;
        double value = 0;
    };
    struct Event {
        qint64 step = 0;
        QList<Scalar> scalars; // in the order the Summary holds them
    };
    // Decodes one record's serialized Event: its step and the scalar values of its summary.
    // scalarTags holds the tags seen as scalars earlier in the same file and is updated: TensorBoard's
    // writers put the SummaryMetadata saying "scalars" only on a tag's first value, so a later tensor
    // value without metadata is a scalar when its tag was. False (and why) when the bytes are not a
    // well-formed Event.
    static bool parseEvent(QByteArrayView record, QSet<QString> &scalarTags, Event *event, QString *error = nullptr);
};

} // namespace rankscope
