// Writes the seed corpora for the fuzz targets: small valid inputs of every kind they read.
//   make_fuzz_seeds OUT_FOLDER   → OUT_FOLDER/<target>/<seed files>
#include "../core/DcpCheckpointWriter.h"
#include "../core/FormatWriters.h"
#include "../core/MegatronCheckpointWriter.h"
#include "../core/TorchCheckpointWriter.h"
#include "FolderFuzzInput.h"

#include "io/logs/TensorBoardEvents.h"

#include <QDir>
#include <QtEndian>
#include <cstdio>

using namespace rankscope::test;

namespace {

// A TFRecord as tensorboard/summary/writer/record_writer.py frames one: length, masked CRC-32C of
// the length, data, masked CRC-32C of the data (little-endian).
QByteArray tfRecord(const QByteArray &data)
{
    QByteArray header(8, '\0'), crcs(8, '\0');
    qToLittleEndian<quint64>(quint64(data.size()), header.data());
    qToLittleEndian<quint32>(rankscope::TensorBoardEvents::maskedCrc32c(header), crcs.data());
    qToLittleEndian<quint32>(rankscope::TensorBoardEvents::maskedCrc32c(data), crcs.data() + 4);
    return header + crcs.left(4) + data + crcs.mid(4);
}
QByteArray field(char key, const QByteArray &message) { return key + QByteArray(1, char(message.size())) + message; } // < 128 bytes
QByteArray float32(float v) { QByteArray b(4, '\0'); qToLittleEndian(v, b.data()); return b; }

// An event file: the version record, then Event{step 7, summary: loss as simple_value, lr as a
// new_style tensor with plugin "scalars"}, then the same tag at step 8 without its metadata.
QByteArray tensorBoardEvents()
{
    const QByteArray wallTime = QByteArray("\x09", 1) + QByteArray(8, '\x01'); // Event.wall_time = 1
    const QByteArray version = tfRecord(wallTime + field('\x1a', "brain.Event:2")); // file_version = 3
    const QByteArray loss = field('\x0a', field('\x0a', "loss") + '\x15' + float32(2.5f)); // Value{tag 1, simple_value 2}
    const QByteArray tensor = QByteArray("\x08\x01", 2) + field('\x2a', float32(3e-4f)); // dtype 1 = DT_FLOAT, float_val 5 packed
    const QByteArray metadata = field('\x0a', field('\x0a', "scalars")); // plugin_data 1 {plugin_name 1}
    const QByteArray lr = field('\x0a', field('\x0a', "lr") + field('\x42', tensor) + field('\x4a', metadata)); // tensor 8, metadata 9
    const QByteArray lrBare = field('\x0a', field('\x0a', "lr") + field('\x42', tensor));
    return version + tfRecord(wallTime + "\x10\x07" + field('\x2a', loss + lr)) + tfRecord(wallTime + "\x10\x08" + field('\x2a', lrBare));
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: make_fuzz_seeds OUT_FOLDER\n");
        return 1;
    }
    const QDir out(QString::fromLocal8Bit(argv[1]));
    auto write = [&](const char *target, const char *name, const QByteArray &bytes) {
        out.mkpath(QLatin1String(target));
        saveBytes(out.filePath(QStringLiteral("%1/%2").arg(QLatin1String(target), QLatin1String(name))), bytes);
    };
    const QList<FakeTensor> tensors = {{"transformer.h.0.attn.c_attn.weight", "FloatStorage", "0", 12, 0, {6, 2}, {2, 1}},
                                       {"transformer.h.0.mlp.c_fc.weight", "HalfStorage", "1", 8, 0, {2, 4}, {1, 2}},
                                       {"lm_head.weight", "FloatStorage", "0", 12, 2, {2, 2}, {2, 1}}};
    const QByteArray pickle = torchPickle(tensors, 100);
    write("fuzz_pickle", "state_dict.pkl", pickle);
    PickleBuilder evil;
    evil.op('\x80').op('\x02').global("os", "system").op('(').str("true").op('t').op('R').op('.');
    write("fuzz_pickle", "unsafe.pkl", evil.bytes);
    const QByteArray storage0 = rawBytes<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    const QByteArray storage1 = rawBytes<quint16>({0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700, 0x4800});
    write("fuzz_torch_checkpoint", "ckpt.pt", zipArchive({{"ckpt/data.pkl", pickle}, {"ckpt/byteorder", "little"},
                                                          {"ckpt/data/0", storage0}, {"ckpt/data/1", storage1}, {"ckpt/version", "3\n"}}));
    write("fuzz_safetensors", "model.safetensors",
          safetensorsFile({{"a", "F32", {2, 3}, rawBytes<float>({1, 2, 3, 4, 5, 6})}, {"b", "BF16", {2, 2}, rawBytes<quint16>({0x3F80, 0, 0, 0x3F80})},
                           {"c", "F16", {1, 2}, rawBytes<quint16>({0x3C00, 0x4000})}, {"d", "F8_E4M3", {2, 1}, QByteArray("\x38\x40", 2)}}));
    const QByteArray npy = npyFile("<f4", {2, 3}, rawBytes<float>({1, 2, 3, 4, 5, 6}));
    write("fuzz_numpy", "a.npy", npy);
    write("fuzz_numpy", "fortran.npy", npyFile(">f8", {2, 2}, rawBytes<double>({1, 2, 3, 4}, true), true));
    write("fuzz_numpy", "stored.npz", npzArchive({{"w.npy", npy}}, false));
    write("fuzz_numpy", "compressed.npz", npzArchive({{"w.npy", npy}, {"v.npy", npy}}, true));
    // fuzz_dcp_metadata: the .metadata of the folder the target puts each input in.
    const QString dcp = out.filePath(QStringLiteral("fuzz_dcp_metadata.folder"));
    // Under Python 3.11.0–3.11.4 its memory-format enum member is a getattr call (EnumPickling).
    DcpFolderSpec byName = dcpFuzzFolder();
    byName.enumPickling = EnumPickling::ByName;
    // Two chunks naming the same bytes: the overlap check across chunks is reached from a seed.
    DcpFolderSpec sharing = dcpFuzzFolder();
    sharing.tensors[0].chunks[1].offsetOverride = 0;
    for (const auto &[spec, name] : {std::pair{dcpFuzzFolder(), "valid.metadata"}, std::pair{byName, "valid-python-3.11.2.metadata"},
                                     std::pair{sharing, "shared-bytes.metadata"}})
        if (DcpFolderWriter::write(dcp, spec)) {
            QFile metadata(QDir(dcp).filePath(QStringLiteral(".metadata")));
            if (metadata.open(QIODevice::ReadOnly))
                write("fuzz_dcp_metadata", name, metadata.readAll());
            QDir(dcp).removeRecursively();
        }
    // fuzz_name_rules: 6 bytes of shape and config, then a tensor name (or a rules file, or an index).
    write("fuzz_name_rules", "nanogpt", QByteArray("\x01\x0c\x04\x02\x01\x04", 6) + "transformer.h.3.attn.c_attn.weight");
    write("fuzz_name_rules", "neox", QByteArray("\x01\x0c\x04\x02\x00\x04", 6) + "gpt_neox.layers.1.attention.query_key_value.weight");
    write("fuzz_name_rules", "falcon", QByteArray("\x01\x0c\x04\x02\x01\x05", 6) + "transformer.h.0.self_attention.query_key_value.weight");
    write("fuzz_name_rules", "experts", QByteArray("\x00\x03\x08\x04\x02\x04", 6) + "model.layers.1.mlp.experts.gate_up_proj");
    write("fuzz_name_rules", "rules", QByteArray("\x01\x04\x04\x00\x00\x00", 6) +
                                          R"({"rules":[{"pattern":"^blocks\\.(\\d+)\\.attn\\.qkv\\.weight$","split":"qkv"},{"pattern":"x","ignore":true}],"config":{"num_attention_heads":2}})");
    write("fuzz_name_rules", "index", QByteArray("\x01\x04\x04\x00\x00\x00", 6) + R"({"weight_map":{"a":"model-1.safetensors"}})");
    // fuzz_hdf5: programs for Hdf5FuzzImage (a base file, then operations): the bases unchanged, a
    // results file whose format is an array, a checkpoint with a matrix never written.
    write("fuzz_hdf5", "results", QByteArray("\x01", 1));
    write("fuzz_hdf5", "checkpoint", QByteArray("\x02", 1));
    write("fuzz_hdf5", "format-array", QByteArray("\x01\x00\x00\x00\x04\x3f\x00\x11", 8) + "rankscope-results" + QByteArray(8, '\0'));
    write("fuzz_hdf5", "never-written", QByteArray("\x02\x01\x14\x02\x01\x01\x84\x83", 8));
    // fuzz_save_folders: whole folders (FolderFuzzInput.h). A Megatron-LM save of two TP ranks with
    // its tracker; the same beside a rank folder claiming a 9999 × 9999 grid; a .nemo of one rank.
    using rankscope::fuzz::folderEntry;
    const QList<QPair<QString, QVariant>> args{{"num_layers", 1}, {"hidden_size", 4}, {"num_attention_heads", 2},
                                               {"tensor_model_parallel_size", 2}, {"pipeline_model_parallel_size", 1}};
    QByteArray megatron = folderEntry("latest_checkpointed_iteration.txt", "100");
    for (int rank = 0; rank < 2; ++rank) {
        MegatronPickle pickle(args, 100);
        pickle.addChunk({{{"language_model", "encoder", "layers.0.self_attention.dense.weight"}, {4, 2}, Eigen::MatrixXd::Constant(4, 2, rank + 1)},
                         {{"language_model", "encoder", "layers.0.mlp.dense_4h_to_h.weight"}, {4, 4}, Eigen::MatrixXd::Identity(4, 4)}});
        megatron += folderEntry(QStringLiteral("iter_0000100/mp_rank_%1/model_optim_rng.pt").arg(rank, 2, 10, QLatin1Char('0')).toUtf8(), pickle.archive());
    }
    write("fuzz_save_folders", "megatron", megatron);
    write("fuzz_save_folders", "megatron-claimed-grid", megatron + folderEntry("iter_0000100/mp_rank_9999_9999/"));
    MegatronPickle nemoWeights({}, 0);
    nemoWeights.addChunk({{{"model.decoder.layers.0.self_attention.linear_proj.weight"}, {4, 4}, Eigen::MatrixXd::Identity(4, 4)}});
    const QByteArray yaml = "num_layers: 1\nhidden_size: 4\nnum_attention_heads: 2\ntensor_model_parallel_size: 1\n";
    write("fuzz_save_folders", "nemo", folderEntry("megatron_gpt--step=100.nemo", tarArchive({{".", {}, true}, {"./model_config.yaml", yaml},
                                                                                                 {"./model_weights.ckpt", nemoWeights.stateDictArchive()}})));
    write("fuzz_save_folders", "nemo-yaml-twice",
          folderEntry("megatron_gpt--step=100.nemo", tarArchive({{".", {}, true}, {"./model_config.yaml", yaml}, {"./model_weights.ckpt", nemoWeights.stateDictArchive()},
                                                                  {"./model_config.yaml", "num_layers: 9\n"}})));
    write("fuzz_tensorboard_events", "events.out.tfevents.1700000000.host.1.0", tensorBoardEvents());
    std::printf("seeds written to %s\n", argv[1]);
    return 0;
}
