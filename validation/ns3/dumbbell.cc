// ns-3 (3.44) side of the validation suite's dumbbell cases: N bulk TCP flows from
// s_i through R1 -> R2 to d_i, the bottleneck's FIFO of QUEUE packets, every value set
// to match the superpacket scenario of the same name (python/superpacket/validation/
// ns3_cases.py): no TCP timestamps (a 1500-byte packet carries 1460 bytes, as ours),
// no delayed ACK, initial window 10, minimum RTO 200 ms, initial RTO 1 s, recovery as
// asked (classic RFC 6582 NewReno with --recovery=classic, PRR with --recovery=prr), SACK
// as asked, and the bottleneck's queue counted as ours counts it: packets waiting, the
// one being sent not included (a FIFO queue disc of QUEUE - 1 packets in front of a
// device queue of 1). --red=true puts ns-3's RedQueueDisc in the FIFO's place (thresholds
// given as ours, in packets waiting; the disc's are one below, as it does not hold the
// packet in the device queue).
//
// Prints one JSON object: the bottleneck's utilisation and drops, the time-average
// number of packets waiting (sampled every millisecond) and the flows' goodput, over
// [warmup, duration].
#include "common.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <string>
#include <vector>


namespace ns3
{
// Not used by the validation suite's cases: a diagnostic for "What does not agree, and why"
// on the validation page. ns-3's recovery computes ssthresh from BytesInFlight(), which with
// SACK is RFC 6675's pipe (SACKed and lost segments out); RFC 6675 (4.2) and ours halve
// FlightSize (SND.NXT - SND.UNA). This NewReno halves FlightSize (--cc=ns3::TcpNewRenoFlightSize).
class TcpNewRenoFlightSize : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpNewRenoFlightSize")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<TcpNewRenoFlightSize>();
        return tid;
    }

    TcpNewRenoFlightSize() = default;

    TcpNewRenoFlightSize(const TcpNewRenoFlightSize& s)
        : TcpNewReno(s)
    {
    }

    std::string GetName() const override
    {
        return "TcpNewRenoFlightSize";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t /* bytesInFlight */) override
    {
        uint32_t flight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        return std::max(2 * tcb->m_segmentSize, flight / 2);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpNewRenoFlightSize>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpNewRenoFlightSize);
} // namespace ns3

using namespace ns3;

static Ptr<QueueDisc> g_disc;
static Ptr<Queue<Packet>> g_devq;
static double g_qsum = 0;
static uint64_t g_qn = 0;
static double g_warmup = 0;

static void
SampleQueue()
{
    if (Simulator::Now().GetSeconds() >= g_warmup)
    {
        g_qsum += g_disc->GetNPackets() + g_devq->GetNPackets();
        g_qn += 1;
    }
    Simulator::Schedule(MilliSeconds(1), &SampleQueue);
}

int
main(int argc, char* argv[])
{
    uint32_t flows = 8;
    double duration = 60;
    double warmup = 10;
    uint32_t queue = 40;
    uint32_t seed = 1;
    std::string cc = "ns3::TcpNewReno";
    std::string recovery = "classic";
    bool sack = false;
    bool limitedTransmit = false;
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    std::string bnRate = "10Mbps";
    std::string bnDelay = "20ms";
    double jitter = 1.0;
    bool red = false;
    double minTh = 5;
    double maxTh = 15;
    double qw = 0.002;
    double pMax = 0.1;
    bool gentle = true;
    bool wait = true;
    std::string redIdleRate;
    CommandLine cmd;
    cmd.AddValue("flows", "bulk flows", flows);
    cmd.AddValue("duration", "seconds", duration);
    cmd.AddValue("warmup", "seconds not measured", warmup);
    cmd.AddValue("queue", "bottleneck packets waiting at most", queue);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("cc", "TCP congestion control TypeId", cc);
    cmd.AddValue("recovery", "classic | prr", recovery);
    cmd.AddValue("sack", "SACK", sack);
    cmd.AddValue("limitedTransmit", "RFC 3042 limited transmit (ns-3's default: on)", limitedTransmit);
    cmd.AddValue("accessRate", "access rate", accessRate);
    cmd.AddValue("accessDelay", "access delay", accessDelay);
    cmd.AddValue("bnRate", "bottleneck rate", bnRate);
    cmd.AddValue("bnDelay", "bottleneck delay", bnDelay);
    cmd.AddValue("jitter", "flow starts uniform in [0, jitter) s", jitter);
    cmd.AddValue("red", "RED at the bottleneck instead of the FIFO", red);
    cmd.AddValue("minTh", "RED min_th, packets waiting (ours)", minTh);
    cmd.AddValue("maxTh", "RED max_th, packets waiting (ours)", maxTh);
    cmd.AddValue("qw", "RED w_q", qw);
    cmd.AddValue("pMax", "RED p_max (1 / LInterm)", pMax);
    cmd.AddValue("gentle", "RED gentle", gentle);
    cmd.AddValue("wait", "RED wait", wait);
    cmd.AddValue("redIdleRate", "RED LinkBandwidth, its idle decay's rate (default: bnRate)", redIdleRate);
    cmd.Parse(argc, argv);
    g_warmup = warmup;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    ConfigureTcp(cc, recovery, sack, limitedTransmit);

    NodeContainer senders, receivers, routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access = Link(accessRate, accessDelay, "100000p");
    PointToPointHelper bottleneck = Link(bnRate, bnDelay);

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> sinkAddr;
    TrafficControlHelper bigFifo = Fifo("100000p");
    for (uint32_t i = 0; i < flows; ++i)
    {
        NetDeviceContainer a = access.Install(senders.Get(i), routers.Get(0));
        bigFifo.Install(a);
        addr.SetBase(Ipv4Address(("10.1." + std::to_string(i) + ".0").c_str()), "255.255.255.0");
        addr.Assign(a);
        NetDeviceContainer b = access.Install(routers.Get(1), receivers.Get(i));
        bigFifo.Install(b);
        addr.SetBase(Ipv4Address(("10.2." + std::to_string(i) + ".0").c_str()), "255.255.255.0");
        Ipv4InterfaceContainer ifs = addr.Assign(b);
        sinkAddr.push_back(ifs.GetAddress(1));
    }
    NetDeviceContainer bn = bottleneck.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper fifo = Fifo(std::to_string(queue - 1) + "p");
    if (red)
    {
        // the disc holds the packets waiting but the one in the device queue: its
        // thresholds one below ours
        fifo = TrafficControlHelper();
        fifo.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", StringValue(std::to_string(queue - 1) + "p"),
                              "MinTh", DoubleValue(minTh - 1), "MaxTh", DoubleValue(maxTh - 1),
                              "QW", DoubleValue(qw), "LInterm", DoubleValue(1.0 / pMax),
                              "Gentle", BooleanValue(gentle), "Wait", BooleanValue(wait),
                              "MeanPktSize", UintegerValue(1500),
                              "LinkBandwidth", StringValue(redIdleRate.empty() ? bnRate : redIdleRate),
                              "LinkDelay", StringValue(bnDelay));
    }
    QueueDiscContainer discs = fifo.Install(bn);
    addr.SetBase("10.3.0.0", "255.255.255.0");
    addr.Assign(bn);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    g_disc = discs.Get(0);
    g_devq = DynamicCast<PointToPointNetDevice>(bn.Get(0))->GetQueue();

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < flows; ++i)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9000));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr[i], 9000));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1460));
        ApplicationContainer c = bulk.Install(senders.Get(i));
        c.Start(Seconds(start->GetValue(0, jitter)));
    }
    Ptr<PointToPointNetDevice> bnDev = DynamicCast<PointToPointNetDevice>(bn.Get(0));
    uint64_t txBytes = 0;
    uint64_t txAtWarmup = 0;
    bnDev->TraceConnectWithoutContext("PhyTxEnd",
                                      MakeBoundCallback(+[](uint64_t* n, Ptr<const Packet> p) {
                                          *n += p->GetSize(); // the frame, PPP header included
                                      }, &txBytes));
    std::vector<uint64_t> rxAtWarmup(flows, 0);
    uint32_t dropsAtWarmup = 0;
    Simulator::Schedule(Seconds(warmup), [&]() {
        txAtWarmup = txBytes;
        for (uint32_t i = 0; i < flows; ++i)
        {
            rxAtWarmup[i] = sinks[i]->GetTotalRx();
        }
        dropsAtWarmup = g_disc->GetStats().nTotalDroppedPackets;
    });
    Simulator::Schedule(Seconds(0), &SampleQueue);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    double span = duration - warmup;
    double rate = DataRate(bnRate).GetBitRate();
    // the fraction of the time the bottleneck sent (its frames include the 2-byte PPP header)
    double util = (double)(txBytes - txAtWarmup) * 8 / (rate * span);
    uint64_t goodput = 0;
    for (uint32_t i = 0; i < flows; ++i)
    {
        goodput += sinks[i]->GetTotalRx() - rxAtWarmup[i];
    }
    uint32_t drops = g_disc->GetStats().nTotalDroppedPackets - dropsAtWarmup;
    std::string red_drops;
    if (red)
    {
        // RED's early and forced drops over the whole run (not only [warmup, duration])
        const QueueDisc::Stats& st = g_disc->GetStats();
        red_drops = ", \"red_early_drops\": " +
                    std::to_string(st.GetNDroppedPackets(RedQueueDisc::UNFORCED_DROP)) +
                    ", \"red_forced_drops\": " +
                    std::to_string(st.GetNDroppedPackets(RedQueueDisc::FORCED_DROP)) +
                    ", \"overflow_drops\": " +
                    std::to_string(st.GetNDroppedPackets(QueueDisc::INTERNAL_QUEUE_DROP)) +
                    ", \"arrivals\": " + std::to_string(st.nTotalReceivedPackets);
    }
    std::printf("{\"utilization\": %.6f, \"mean_queue_pkts\": %.4f, \"drops\": %u, \"goodput_bps\": %.1f%s}\n",
                util,
                g_qsum / (double)g_qn,
                drops,
                goodput * 8.0 / span,
                red_drops.c_str());
    Simulator::Destroy();
    return 0;
}
