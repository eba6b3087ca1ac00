// Turns fuzz input into an HDF5 file: the input is a short program that starts from an empty
// file, a valid results file or a valid checkpoint, and sets attributes of any shape, creates
// datasets of any type, shape and storage, and deletes objects, all in memory (HDF5's core
// driver). Raw HDF5 bytes are not mutated: that would fuzz libhdf5's own parser. Shared by the
// fuzz target and the replay of its regression inputs.
#pragma once

#include "../core/Hdf5TestFiles.h"
#include "analysis/results/ResultsFile.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <cstring>
#include <vector>

namespace rankscope::fuzz {

class Hdf5FuzzImage {
public:
    // The HDF5 file the program in `data` builds.
    static QByteArray build(const uint8_t *data, size_t size)
    {
        Hdf5FuzzImage image(data, size);
        return image.run();
    }

private:
    Hdf5FuzzImage(const uint8_t *data, size_t size) : m_data(data), m_size(size) {}

    uint8_t next() { return m_pos < m_size ? m_data[m_pos++] : 0; }
    bool more() const { return m_pos < m_size; }
    QByteArray take(size_t n)
    {
        n = std::min(n, m_size - m_pos);
        const QByteArray bytes(reinterpret_cast<const char *>(m_data + m_pos), qsizetype(n));
        m_pos += n;
        return bytes;
    }

    static const char *attributeName(uint8_t i)
    {
        static const char *names[] = {"format", "schema_version", "complete", "folder", "settings_key", "step", "dtype", "energy"};
        return names[i % 8];
    }
    static const char *datasetPath(uint8_t i)
    {
        static const char *paths[] = {
            "singular_values", "notes", "checkpoints/path", "checkpoints/step", "checkpoints/format", "checkpoints/error",
            "checkpoints/fingerprint", "checkpoints/size", "checkpoints/matrices", "matrices/type", "matrices/rows",
            "matrices/cols", "matrices/sv_offset", "matrices/sv_count", "matrices/tensor", "matrices/block",
            "matrices/stable_rank", "issues/path", "issues/message", "skipped_files/path",
            "transformer/h/0/attn/c_proj.weight", "model/layers/0/mlp/experts/down_proj", "bf16.weight", "checkpoints"};
        return paths[i % 24];
    }

    // A base file to change: empty, a results file as RankScope writes them, or a checkpoint.
    static QByteArray baseImage(uint8_t which)
    {
        static const QByteArray results = [] {
            QTemporaryDir dir;
            RunAnalysis run;
            run.folder = dir.path();
            run.settingsKey = QStringLiteral("solver=gram;rules=builtin;schema=3");
            for (int i = 0; i < 3; ++i) {
                MatrixResult r;
                r.singularValues = Eigen::VectorXd::LinSpaced(3, 3, 1);
                r.rows = r.cols = 3;
                r.layer = i;
                r.tensor = QStringLiteral("t%1").arg(i);
                r.metrics = computeSpectralMetrics(r.singularValues, 3, 3);
                run.results << r;
            }
            CheckpointRecord c;
            c.path = dir.filePath("ckpt.pt");
            c.matrices = 3;
            c.fingerprint = QStringLiteral("00");
            run.checkpoints << c;
            run.issues << AnalysisIssue{c.path, QStringLiteral("t9"), QStringLiteral("broken"), false};
            run.sidecars << SkippedFile{dir.filePath("optimizer.pt"), QStringLiteral("sidecar")};
            run.notes << QStringLiteral("a note");
            QString error;
            ResultsFile::save(run, dir.filePath("r.h5"), &error);
            // The seal cleared: the fuzzer's edits are made through libhdf5 and reach load's checks
            // of the content, not the seal's refusal of any change.
            test::clearResultsSeal(dir.filePath("r.h5"));
            QFile f(dir.filePath("r.h5"));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        static const QByteArray checkpoint = [] {
            QTemporaryDir dir;
            const QString path = dir.filePath("c.h5");
            const hid_t file = H5Fcreate(QFile::encodeName(path).constData(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
            test::writeDataset(file, "transformer/h/0/attn/c_proj.weight", {4, 4}, test::DatasetStorage::Written);
            test::writeDataset(file, "model/layers/0/mlp/experts/down_proj", {2, 3, 4}, test::DatasetStorage::Written);
            test::writeAttribute(file, "step", test::AttributeShape::Int64Scalar, {}, 100);
            H5Fclose(file);
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        return which % 3 == 1 ? results : which % 3 == 2 ? checkpoint : QByteArray();
    }

    QByteArray run()
    {
        const QByteArray base = baseImage(next());
        const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_core(access, 1 << 16, false);
        hid_t file = -1;
        if (base.isEmpty()) {
            file = H5Fcreate("fuzz.h5", H5F_ACC_TRUNC, H5P_DEFAULT, access);
        } else {
            H5Pset_file_image(access, const_cast<char *>(base.constData()), size_t(base.size()));
            file = H5Fopen("fuzz.h5", H5F_ACC_RDWR, access);
        }
        H5Pclose(access);
        if (file < 0)
            return {};
        for (int operations = 0; more() && operations < 64; ++operations) {
            switch (next() % 4) {
            case 0: setAttribute(file); break;
            case 1: createDataset(file); break;
            case 2: H5Ldelete(file, datasetPath(next()), H5P_DEFAULT); break;
            default: H5Adelete(file, attributeName(next())); break;
            }
        }
        H5Fflush(file, H5F_SCOPE_GLOBAL);
        QByteArray image;
        const ssize_t size = H5Fget_file_image(file, nullptr, 0);
        if (size > 0) {
            image.resize(qsizetype(size));
            if (H5Fget_file_image(file, image.data(), size_t(size)) != size)
                image.clear();
        }
        H5Fclose(file);
        return image;
    }

    // On the root, or on one of the datasets.
    void setAttribute(hid_t file)
    {
        const uint8_t where = next();
        const char *name = attributeName(next());
        const auto shape = test::AttributeShape(next() % 7);
        const hsize_t count = 1 + next() % 70;
        const size_t size = next() % 40;
        const QByteArray text = take(next() % 32);
        long long number = 0;
        const QByteArray digits = take(8);
        std::memcpy(&number, digits.constData(), size_t(digits.size()));
        hid_t object = file;
        if (where % 2) {
            object = H5Oopen(file, datasetPath(where >> 1), H5P_DEFAULT);
            if (object < 0)
                return;
        }
        test::writeAttribute(object, name, shape, text.isEmpty() ? QByteArray("x") : text, number, count, size);
        if (object != file)
            H5Oclose(object);
    }

    // Any of eight types; dims small, or (never written, or chunked with one chunk) huge.
    void createDataset(hid_t file)
    {
        const char *path = datasetPath(next());
        const uint8_t typeCode = next() % 8, rank = 1 + next() % 3, storage = next() % 4;
        std::vector<hsize_t> dims(rank);
        hsize_t elements = 1;
        for (hsize_t &d : dims) {
            const uint8_t b = next();
            d = b & 0x80 && storage >= 1 && storage <= 2 ? hsize_t(1) << (b % 40) : b % 17;
            elements = d && elements > (hsize_t(1) << 62) / d ? hsize_t(1) << 62 : elements * d;
        }
        H5Ldelete(file, path, H5P_DEFAULT);
        const hid_t types[] = {H5T_IEEE_F32LE, H5T_IEEE_F32LE, H5T_IEEE_F64LE, H5T_STD_U16LE, H5T_STD_I32LE, H5T_STD_I64LE};
        hid_t type = -1;
        if (typeCode == 0) {
            // float16, as h5py defines it (HDF5 1.10 has no predefined one)
            type = H5Tcopy(H5T_IEEE_F32LE);
            H5Tset_fields(type, 15, 10, 5, 0, 10);
            H5Tset_size(type, 2);
            H5Tset_ebias(type, 15);
        } else if (typeCode < 6) {
            type = H5Tcopy(types[typeCode]);
        } else {
            type = H5Tcopy(H5T_C_S1);
            H5Tset_size(type, typeCode == 6 ? H5T_VARIABLE : 1 + next() % 16);
            H5Tset_cset(type, H5T_CSET_UTF8);
        }
        const hid_t space = H5Screate_simple(int(rank), dims.data(), nullptr);
        const hid_t links = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(links, 1);
        const hid_t creation = H5Pcreate(H5P_DATASET_CREATE);
        const bool empty = elements == 0;
        if (storage == 1)
            H5Pset_alloc_time(creation, H5D_ALLOC_TIME_LATE);
        if (storage == 2 && !empty) {
            std::vector<hsize_t> chunk(rank);
            for (int i = 0; i < rank; ++i)
                chunk[size_t(i)] = std::min<hsize_t>(dims[size_t(i)], 16);
            H5Pset_chunk(creation, int(rank), chunk.data());
            H5Pset_deflate(creation, 1);
        }
        if (storage == 3 && elements * H5Tget_size(type) < 32 * 1024)
            H5Pset_layout(creation, H5D_COMPACT);
        const hid_t dataset = H5Dcreate2(file, path, type, space, links, creation, H5P_DEFAULT);
        if (dataset >= 0 && !empty && (storage == 0 || storage == 3) && elements <= 4096)
            writeValues(dataset, type, size_t(elements));
        // Chunked datasets are left to their fill value: writing a chunk into an image built from
        // fuzzed settings crashed libhdf5 1.10 itself (H5F__accum_read under H5Dwrite), before any
        // RankScope code ran; the readers' fill-value and storage checks are what they exercise.
        if (dataset >= 0)
            H5Dclose(dataset);
        H5Pclose(creation);
        H5Pclose(links);
        H5Sclose(space);
        H5Tclose(type);
    }

    // Values from the input, repeated: raw bytes in the stored type, or short strings.
    void writeValues(hid_t dataset, hid_t type, size_t elements)
    {
        const QByteArray pattern = take(1 + next() % 64);
        if (H5Tis_variable_str(type) > 0) {
            if (pattern.isEmpty()) // the input ran out: no text to repeat
                return;
            std::vector<QByteArray> texts(elements);
            std::vector<const char *> pointers(elements);
            for (size_t i = 0; i < elements; ++i) {
                texts[i] = pattern.mid(qsizetype(i % size_t(pattern.size())), 8);
                pointers[i] = texts[i].constData();
            }
            H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data());
            return;
        }
        std::vector<char> bytes(elements * H5Tget_size(type));
        for (size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = pattern.isEmpty() ? char(i) : pattern[qsizetype(i % size_t(pattern.size()))];
        H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    }


    const uint8_t *m_data;
    size_t m_size;
    size_t m_pos = 0;
};

} // namespace rankscope::fuzz
