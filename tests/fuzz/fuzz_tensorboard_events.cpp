// A TensorBoard event file: TFRecord framing (lengths, masked CRC-32C), then each record's Event
// protobuf down to its summary values' tensors. Read from memory through the same streaming code a
// file goes through (read(QIODevice&)), so no file is written per input. CRCs make random bytes
// stop at the first record; the seeds (make_fuzz_seeds) carry valid framing for the mutator to keep.
#include "io/logs/TensorBoardEvents.h"

#include <QBuffer>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::ReadOnly);
    rankscope::ScalarLog log;
    rankscope::TensorBoardEvents::read(buffer, QStringLiteral("events.out.tfevents.1700000000.fuzz.1.0"), log);
    // Framing aside, the Event decoder alone on the whole input: the mutator rarely keeps a CRC valid.
    QSet<QString> scalarTags;
    rankscope::TensorBoardEvents::Event event;
    rankscope::TensorBoardEvents::parseEvent(bytes, scalarTags, &event);
    return 0;
}
