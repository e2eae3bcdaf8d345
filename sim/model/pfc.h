/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfc.h - a lossless fabric for the simulator: IEEE 802.1Qbb-style
 * priority flow control with one class.  Every switch counts, per ingress
 * port, the bytes it holds that arrived on that port; above XOFF it
 * pauses the sender at the other end of the link (a host's NIC or a
 * switch's egress port) and resumes it at XON.  A PAUSE takes the link's
 * propagation delay to arrive and is not serialised; a paused port ends
 * the frame it is sending, as a real one does.  What the model leaves out
 * is in docs/sim.md.
 */
#ifndef SYMOFAN_SIM_PFC_H
#define SYMOFAN_SIM_PFC_H

#include <vector>

#include "ns3/queue-disc.h"
#include "ns3/tag.h"

namespace ns3
{

/* The switch interface a packet came in on, while the switch holds it. */
class PfcIngressTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer buf) const override;
    void Deserialize(TagBuffer buf) override;
    void Print(std::ostream& os) const override;

    uint32_t ifIndex = 0;
};

class PfcSwitch;

/*
 * The root queue disc of a port under PFC: its one child queue disc holds
 * the packets; while paused, nothing is dequeued.  On a switch port it
 * tells the switch's accounting what enters and leaves the buffer.
 */
class PfcGate : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    PfcGate();
    ~PfcGate() override;

    void SetSwitch(Ptr<PfcSwitch> sw);
    void Pause();
    void Resume();
    uint64_t Pauses() const;   /* PAUSEs that stopped this port */
    uint64_t PausedNs() const; /* time spent paused, up to now */

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    Ptr<PfcSwitch> m_switch;
    bool m_paused = false;
    uint64_t m_pauses = 0;
    uint64_t m_pausedNs = 0, m_pausedSinceNs = 0;
};

/* A switch's per-ingress buffer accounting and the PAUSEs it sends. */
class PfcSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    PfcSwitch(uint32_t xoffBytes = 1, uint32_t xonBytes = 0);

    /* Interface @ifIndex of this switch is fed by @upstream, @delayNs away. */
    void AddIngress(uint32_t ifIndex, Ptr<PfcGate> upstream, uint64_t delayNs);
    void Enqueued(Ptr<const QueueDiscItem> item);
    void Dequeued(Ptr<const QueueDiscItem> item);
    uint64_t PausesSent() const;

  private:
    struct Ingress
    {
        Ptr<PfcGate> upstream; /* null: not a port of this switch */
        uint64_t delayNs = 0;
        uint64_t bytes = 0;
        bool pausing = false;
    };
    Ingress* Of(const PfcIngressTag& tag);

    uint32_t m_xoff, m_xon;
    std::vector<Ingress> m_ingress; /* by interface index */
    uint64_t m_pausesSent = 0;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_PFC_H */
