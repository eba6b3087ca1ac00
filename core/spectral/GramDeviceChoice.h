// Where the spectra are computed, as --device asks: auto (the GPU when one is usable, else the
// CPU), cpu, or cuda (the GPU, and an error when there is none). Under mpirun each rank takes the
// GPU of its local rank on its machine.
#pragma once

#include "spectral/DeviceGramSolver.h"

#include <QString>
#include <functional>
#include <memory>
#include <optional>

namespace rankscope {

enum class DeviceRequest { Auto, Cpu, Cuda };

// "auto", "cpu", "cuda" (any case); nullopt for anything else.
std::optional<DeviceRequest> parseDeviceRequest(const QString &text);
const char *deviceRequestName(DeviceRequest request);

struct DeviceChoice {
    std::shared_ptr<DeviceGramSolver> device; // null: the CPU
    QString why;          // why the CPU (no usable GPU: "libcublas.so.13 not found"; "--device cpu")
    bool refused = false; // --device cuda and no usable GPU: the command ends (exit 2)
};

// Opens the device with this ordinal, or null with why (openCudaGramDevice; a stand-in in tests).
using GramDeviceOpener = std::function<std::unique_ptr<GramDevice>(int ordinal, QString *why)>;

// The device for `request`, with up to maxSessions matrices on it at once.
DeviceChoice chooseGramDevice(DeviceRequest request, int maxSessions, const GramDeviceOpener &open);

// This process's rank among those a launcher started on its machine (Open MPI, MPICH, Slurm), or 0.
int launcherLocalRank();

// Matrices on one GPU at once: a few streams keep it busy while the host widens the next blocks;
// more only hold more pinned host memory.
inline constexpr int kMaxDeviceSessions = 4;

} // namespace rankscope
