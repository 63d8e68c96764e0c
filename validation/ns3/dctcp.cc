// ns-3 (3.44) side of the validation suite's DCTCP case: N long DCTCP flows s_i -(100
// Gb/s, 12.5 us)-> R1 -(10 Gb/s, 25 us)-> R2 -(100 Gb/s, 12.5 us)-> d_i, the bottleneck
// marking as DCTCP's switch does (Alizadeh et al. 2010, section 3.1): an arrival that
// finds more than K packets waiting is marked CE. ns-3's RED queue disc with the
// instantaneous queue (QW = 1) and MinTh = MaxTh = K does this; the queue holds 1000
// packets, counted as ours counts it (packets waiting; a device queue of 1 in front).
// TCP as common.h sets it, with ECN on and g = 1/16.
//
// Prints one JSON object: the bottleneck's largest number of packets waiting (sampled
// every 5 us) and its utilisation, over [duration/2, duration].
#include "common.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cstdio>
#include <string>

using namespace ns3;

static Ptr<QueueDisc> g_disc;
static Ptr<Queue<Packet>> g_devq;
static uint32_t g_max = 0;
static double g_from = 0;

static void
Sample()
{
    if (Simulator::Now().GetSeconds() >= g_from)
    {
        g_max = std::max(g_max, g_disc->GetNPackets() + g_devq->GetNPackets());
    }
    Simulator::Schedule(MicroSeconds(5), &Sample);
}

int
main(int argc, char* argv[])
{
    uint32_t flows = 2;
    uint32_t k = 40;
    double duration = 2;
    uint32_t seed = 1;
    CommandLine cmd;
    cmd.AddValue("flows", "long flows", flows);
    cmd.AddValue("k", "marking threshold (packets)", k);
    cmd.AddValue("duration", "seconds", duration);
    cmd.AddValue("seed", "run number", seed);
    cmd.Parse(argc, argv);
    g_from = duration / 2;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcp("ns3::TcpDctcp", "classic", false, false);
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(1.0 / 16));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(10)));

    NodeContainer s, d, r;
    s.Create(flows);
    d.Create(flows);
    r.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();
    PointToPointHelper access = Link("100Gbps", "12.5us");
    PointToPointHelper bn = Link("10Gbps", "25us");
    TrafficControlHelper big = Fifo("100000p");
    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", StringValue("999p"), "MinTh", DoubleValue(k), "MaxTh",
                         DoubleValue(k), "QW", DoubleValue(1.0), "UseEcn", BooleanValue(true), "UseHardDrop",
                         BooleanValue(false), "Gentle", BooleanValue(false), "LinkBandwidth",
                         DataRateValue(DataRate("10Gbps")), "LinkDelay", TimeValue(MicroSeconds(25)));
    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> sinkAddr;
    for (uint32_t i = 0; i < flows; ++i)
    {
        NetDeviceContainer a = access.Install(s.Get(i), r.Get(0));
        big.Install(a);
        addr.SetBase(Ipv4Address(("10.1." + std::to_string(i) + ".0").c_str()), "255.255.255.0");
        addr.Assign(a);
        NetDeviceContainer b = access.Install(r.Get(1), d.Get(i));
        big.Install(b);
        addr.SetBase(Ipv4Address(("10.2." + std::to_string(i) + ".0").c_str()), "255.255.255.0");
        sinkAddr.push_back(addr.Assign(b).GetAddress(1));
    }
    NetDeviceContainer link = bn.Install(r.Get(0), r.Get(1));
    QueueDiscContainer discs = red.Install(link.Get(0));
    big.Install(link.Get(1));
    addr.SetBase("10.3.0.0", "255.255.255.0");
    addr.Assign(link);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    g_disc = discs.Get(0);
    g_devq = DynamicCast<PointToPointNetDevice>(link.Get(0))->GetQueue();

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < flows; ++i)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9000));
        sink.Install(d.Get(i)).Start(Seconds(0));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr[i], 9000));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1460));
        bulk.Install(s.Get(i)).Start(Seconds(start->GetValue(0, 0.001)));
    }
    uint64_t tx = 0;
    uint64_t txFrom = 0;
    DynamicCast<PointToPointNetDevice>(link.Get(0))
        ->TraceConnectWithoutContext("PhyTxEnd", MakeBoundCallback(+[](uint64_t* n, Ptr<const Packet> p) {
                                         *n += p->GetSize();
                                     }, &tx));
    Simulator::Schedule(Seconds(g_from), [&]() { txFrom = tx; });
    Simulator::Schedule(Seconds(0), &Sample);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    std::printf("{\"peak_queue_pkts\": %u, \"utilization\": %.6f}\n", g_max,
                (double)(tx - txFrom) * 8 / (10e9 * (duration - g_from)));
    Simulator::Destroy();
    return 0;
}
